"""The ground floor under every app: small helpers with no models that accounts, games,
social and leaderboards all use (docs/architecture.md). It imports none of them."""
