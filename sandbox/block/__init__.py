"""The block core: what an html block is and how its document is built, with no browser.

The isolation policy (:mod:`.policy`), the path grammar (:mod:`.paths`), the browser-exact
path extraction (:mod:`.extract`), projection and text (:mod:`.projection`, :mod:`.templates`),
JavaScript's JSON (:mod:`.jsonjs`) and the block document itself (:mod:`.srcdoc`).
"""
