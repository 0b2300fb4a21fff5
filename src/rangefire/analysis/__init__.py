"""Analysis on top of the rulesets: Monte Carlo estimates and charts."""
