"""Rendering: answers, plans, reports and errors as text, JSON or Markdown, with one
number formatter, one constraint formatter and one table writer. Standard library only."""
