"""The database servers: opening an engine for a URL (`engine`) and the bulk row writers and
readers of each dialect (`bulk`)."""
