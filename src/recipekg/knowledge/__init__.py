"""The KB side: Turtle files (ontology/, kb/, extensions) read with file:line, validated,
compiled into a snapshot of plain data with a rule index, cached, and exported for triple
stores. Only :mod:`~recipekg.knowledge.snapshot`, :mod:`~recipekg.knowledge.resources` and
:mod:`~recipekg.knowledge.terms` are on the query path; the rest loads RDF libraries."""
