"""``recipe [where ...]``: one training recipe for the situation, assembled from what the
other statements answer, every item sourced or said to be unsourced.

    >>> from recipekg.recipe.assemble import recipe
    >>> a = recipe(parse("recipe where data = text and task = generation and params = 7B and hardware = h100 and gpus = 64")[0], snap)
    >>> [s["name"] for s in a["sections"]][:4]
    ['architecture', 'approach', 'size', 'data']

It re-decides nothing (:mod:`recipekg.recipe.assemble`): the architecture, approach,
optimizer and technique sections are the picks of ``recommend`` for the same constraints,
size, memory, parallelism, time and cost are ``plan``'s, the hyperparameters the KB's
sourced settings of the picked choices (:mod:`recipekg.recipe.settings`), the risks the fixes
``recommend fix`` gives for the failure modes that can occur. Configurations a trainer reads
are written from the answer by :mod:`recipekg.recipe.emit`.
"""
