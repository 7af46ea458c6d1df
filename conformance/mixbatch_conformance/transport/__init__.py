"""The suite's I/O at the bottom of its layers: a raw-socket HTTP/1.1 client (`http`), the
relay that plants bugs between the suite and a server (`relay`), and the embedded reference
server started as a subprocess (`embedded`). Nothing here imports the rest of the suite.
"""
