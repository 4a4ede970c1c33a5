"""Reasoning: a statement's names resolved against the vocabulary, the facts it implies,
every rule evaluated by a backend (the snapshot's rule index or a SPARQL engine), scored by
one model (:mod:`~recipekg.reason.scoring`) and ranked; ``explain`` on the same pieces."""
