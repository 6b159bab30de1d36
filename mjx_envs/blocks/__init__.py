"""Family registered in mjx_envs."""
