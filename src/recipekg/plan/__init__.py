"""``plan``: size a training run (params, tokens, FLOPs, memory, fit, time) from the KB's
formulas and constants; :func:`recipekg.plan.planner.plan` runs the steps in order.

    >>> from recipekg.plan.planner import plan
    >>> plan(parse("plan where params = 7B")[0], snap)["quantities"][0]["name"]
    'params'
"""
