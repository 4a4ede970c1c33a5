"""Citations: bundles of the papers behind an answer, a choice, a rule or a paper; their
formats (text, BibTeX, CSL-JSON, RIS); the citation graph that follows papers both ways."""
