"""Where trials' worlds are served: the interface, the in-process host and the host on a running server."""
