"""Is the master notebook nbgrader's: the lesson's cells, each exercise's solution, check and grade cells, its metadata?"""

import nbformat


def test_nbconvert_exports_the_release_as_a_python_script(assignment):
    """Does nbconvert's script exporter, reading the release's language_info, write a .py file?"""
    from nbconvert import ScriptExporter

    notebook = nbformat.read(assignment.release_dir / assignment.notebook_name, as_version=4)
    script, resources = ScriptExporter().from_notebook_node(notebook)
    assert resources["output_extension"] == ".py"
    assert "def " in script
