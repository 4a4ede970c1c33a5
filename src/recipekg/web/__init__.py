"""The local, read-only web page: the Flask app, its views, what the pages present and the
reasoning picture, templates and static files."""
