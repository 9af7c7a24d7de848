// Placeholder: the in-block runtime (window.flowUi) is written by the bridge work.
