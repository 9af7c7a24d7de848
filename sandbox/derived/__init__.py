"""The derived files and the step that writes them: the JavaScript contract (:mod:`.contract`),
the golden block documents (:mod:`.goldens`) and ``flowui-sandbox generate`` (:mod:`.generate`),
which writes each from its one source and checks that none is stale.
"""
