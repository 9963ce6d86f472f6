"""Author, build, release: from the instructor's one source per assignment to what students get.

blocks.py    the reference read as blocks: exercises, solution regions, stubs
lesson.py    the lesson's Markdown and fenced cells, and what each demo needs
visible.py   the visible checks' data: the reference's outputs on the visible inputs
bundle.py    the self-check bundle, packed into the notebook's first code cell
notebook.py  the nbgrader master notebook
release.py   real nbgrader, and the leak check of its release
build.py     the steps in order, and the freshness check of what is committed
samples.py   finished notebooks made from the release, for the demo and the tests
"""
