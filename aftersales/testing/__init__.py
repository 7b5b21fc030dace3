"""Testing agents against worlds: tasks, a reference checker, an eval runner with pass^k, and a pytest plugin.

Importing this package (as pytest does for the registered plugin) loads no server and touches no database; the
fixtures in `aftersales.testing.plugin` start what they need only when a test asks for them.
"""
