"""The formula language of the KB's ``rkg:expression`` texts, lean and shared: the knowledge
compiler reads formula text into trees once (:mod:`recipekg.formula.syntax`, with :mod:`ast`),
and planning evaluates, solves and shows the stored trees over ranged numbers
(:mod:`recipekg.formula.expr`, without it).

    >>> from recipekg.formula.expr import evaluate, parse_formula
    >>> evaluate(parse_formula("y = 2 * x"), {"x": 21}).value
    42.0
"""
