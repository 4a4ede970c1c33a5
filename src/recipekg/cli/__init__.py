"""The ``recipekg`` command line: click commands, one module per group, over the library;
the fast lane answers the commonest call without importing click."""
