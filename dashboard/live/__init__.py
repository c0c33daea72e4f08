"""The live state of agents, calls and queues, and the pages and sockets that show it."""
