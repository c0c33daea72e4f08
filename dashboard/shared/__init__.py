"""What several apps use: the day's start, chart series, percentages, the service's
summaries as last pulled, asyncio and logging helpers. Imports nothing else of ours."""
