"""Adapters from our pure-function envs to the ecosystem's interfaces: Gymnasium (gymnasium.py), JaxMARL (jaxmarl.py)."""
