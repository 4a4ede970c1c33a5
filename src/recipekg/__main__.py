from .fastcli import main

main(prog_name="recipekg")
