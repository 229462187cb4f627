"""cuegym.agents: baseline and search agents (see the agents issue)."""
