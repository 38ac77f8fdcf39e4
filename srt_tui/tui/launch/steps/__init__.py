"""The launch wizard's steps, one module each; imported only when the operator first reaches them."""
