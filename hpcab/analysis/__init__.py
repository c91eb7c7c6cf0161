"""Figures of a campaign's observations table (hpcab.experiments): the shared style
(hpcab.analysis.style) and the figure functions (hpcab.analysis.figures). The scripts in
analysis/ and ``hpcab report`` draw with these."""
