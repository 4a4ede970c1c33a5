from recipekg.cli.fast import main

main(prog_name="recipekg")
