from recipekg.cli.fast import script

script(prog_name="recipekg")
