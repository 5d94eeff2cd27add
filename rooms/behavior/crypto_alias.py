# Debian's python3-pycryptodome is pycryptodomex (the package Cryptodome); code written
# against PyPI's pycryptodome imports Crypto. The same modules, under that name.
import sys

import Cryptodome

sys.modules[__name__] = Cryptodome
