"""A stand-in for llama-index, on Aider's ``sys.path`` only in the ``/help`` end-to-end test.

Aider's ``/help <question>`` needs its ``help`` extra (llama-index, torch and an embedding model it
downloads): hundreds of MB and the network. This package offers the few names ``aider.help`` imports
and a retriever that returns one fixed document, so that Aider's own code (``Commands.cmd_help``,
``Help.ask``, ``Coder.run``) runs and writes its chat history as it does with the real extra.
"""
