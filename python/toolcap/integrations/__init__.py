"""toolcap inside other projects' harnesses, each a module that imports its
harness (an optional extra) and nothing else imports:
`toolcap.integrations.minisweagent` (`pip install 'toolcap[minisweagent]'`)."""
