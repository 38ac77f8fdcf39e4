"""What serves the public port: router adapters, nginx before several routers, Dynamo runtime, wizard choices."""
