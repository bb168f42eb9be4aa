"""The evaluation lab: a local multi-site web built from a labelled corpus, and its server."""
