from setuptools import setup

setup(
    name="tiny_benign",
    version="1.0.0",
    description="Adds two numbers. A sample package for batlehub's demo: nothing to find.",
    packages=["tiny_benign"],
)
