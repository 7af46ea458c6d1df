"""Tests of the example implementations under examples/."""
