"""Research infrastructure shared by many papers: tiny LMs, corpora, a hookable transformer, tasks, stats, LLM backends."""
