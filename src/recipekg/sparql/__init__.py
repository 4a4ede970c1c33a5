"""SPARQL: a statement as one portable SELECT query, the engines that run it (rdflib,
Oxigraph, any SPARQL 1.1 endpoint), the backend that turns their rows into the reasoner's
evaluations, and loading the export into a server."""
