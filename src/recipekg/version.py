"""The version of recipekg (also in pyproject.toml; a test keeps the two equal).

    >>> __version__.count(".")
    2
"""

__version__ = "0.1.0"
