"""Do the probes' PyTorch helpers enforce the contract with messages that name the fix, and read dropouts and
figures as the student built them?"""

import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from autograder.public import torch_probes
from autograder.public.probing import ContractError, Implementation

IMPL = Implementation({}, device="cpu")


def test_strings_takes_a_list_of_strings_only():
    """Is a list of strings an array of strings (an empty one too), and anything else refused naming who returned it?"""
    assert torch_probes.strings(["a", "bc"], "tokenize").tolist() == ["a", "bc"]
    assert torch_probes.strings([], "tokenize").shape == (0,)
    with pytest.raises(ContractError, match="tokenize should return a list of strings, got str"):
        torch_probes.strings("a b", "tokenize")
    with pytest.raises(ContractError, match="got list"):
        torch_probes.strings(["a", 1], "tokenize")


def test_module_and_linear_refuse_what_the_contract_does_not_name():
    """Must a graded class build an nn.Module, and its projection be an nn.Linear with a bias?"""
    impl = Implementation({"Layer": lambda d: torch.nn.Linear(d, d, bias=False), "Plain": lambda d: object()})
    layer = torch_probes.module(impl, "Layer", 2)
    with pytest.raises(ContractError, match=r"Plain\(...\) should create an nn.Module, got object"):
        torch_probes.module(impl, "Plain", 2)
    owner = torch.nn.Module()
    owner.Wq = layer
    with pytest.raises(ContractError, match="Layer.Wq should have a bias"):
        torch_probes.linear(owner, "Wq", "Layer")
    with pytest.raises(ContractError, match="Layer should have an attribute Wk that is an nn.Linear"):
        torch_probes.linear(owner, "Wk", "Layer")


class PlainNorm(torch.nn.Module):
    """A LayerNorm whose weight and bias are plain tensors (a catalogued mistake): .to(device) does not move them."""

    def __init__(self, d):
        super().__init__()
        self.weight = torch.ones(d, requires_grad=True)
        self.bias = torch.zeros(d)
        self._mask = torch.ones(d, d).tril()  # a constant of its own, under a private name
        self.inner = torch.nn.Module()
        self.inner.scale = torch.full((d,), 2.0)


def test_a_modules_plain_tensors_go_to_the_grading_device_as_its_parameters_do():
    """On another device than the CPU ("meta" stands in for a GPU here), are the plain tensor attributes a module
    keeps, its submodules' too, moved with it (as its parameters are), so its calls do not fail on mixed devices
    where on the CPU they would not; and does the check that it registers its tensors still find them?"""
    built = torch_probes.module(Implementation({"PlainNorm": PlainNorm}, device="meta"), "PlainNorm", 3)
    moved = [built.weight, built.bias, built._mask, built.inner.scale]
    assert [tensor.device.type for tensor in moved] == ["meta"] * 4
    assert built.weight.requires_grad and not isinstance(built.weight, torch.nn.Parameter)
    assert "PlainNorm.weight is a plain tensor attribute" in torch_probes.unregistered(built, "PlainNorm")
    on_cpu = torch_probes.module(Implementation({"PlainNorm": PlainNorm}, device="cpu"), "PlainNorm", 3)
    assert on_cpu.weight.device.type == "cpu"


def test_load_copies_an_array_of_the_parameters_shape_only():
    """Is an array copied into a parameter of its shape, and one of another shape refused naming both shapes?"""
    layer = torch.nn.Linear(3, 2)
    torch_probes.load(layer.weight, np.ones((2, 3)), IMPL, "Layer.Wq.weight")
    assert torch.equal(layer.weight.detach(), torch.ones(2, 3))
    with pytest.raises(ContractError, match=r"Layer.Wq.weight has shape \(2, 3\); expected \(3, 2\)"):
        torch_probes.load(layer.weight, np.ones((3, 2)), IMPL, "Layer.Wq.weight")


class Holder(torch.nn.Module):
    def __init__(self, keep):
        super().__init__()
        self.inner = torch.nn.Module()
        self.scale = torch.tensor(2.0)  # one value: mixes with any device, need not be registered
        for name, value in keep.items():
            setattr(self.inner, name, value)


@pytest.mark.parametrize(
    "keep, words",
    [
        ({"table": torch.zeros(4)}, "Layer.inner.table is a plain tensor attribute"),
        ({"heads": [torch.nn.Linear(1, 1)]}, "Layer.inner.heads is a Python list of modules"),
        ({"heads": {"a": torch.nn.Linear(1, 1)}}, "Keep them in an nn.ModuleDict({...})"),
    ],
    ids=["a plain tensor", "a list of modules", "a dict of modules"],
)
def test_what_a_module_keeps_unregistered_is_named_with_the_fix(keep, words):
    """Is a tensor or a container of modules kept as a plain attribute (at any depth) named, with how to register
    it, and the probe that requires registration failing with that message?"""
    assert words in torch_probes.unregistered(Holder(keep), "Layer")
    with pytest.raises(ContractError, match="does not register"):
        torch_probes.registered(Implementation({"Layer": lambda: Holder(keep)}), "Layer", ())


def test_a_module_that_registers_everything_passes():
    """Are parameters, buffers, nn.ModuleList and a one-value tensor accepted?"""
    layer = Holder({"heads": torch.nn.ModuleList([torch.nn.Linear(1, 1)])})
    layer.register_buffer("pe", torch.zeros(3))
    assert torch_probes.unregistered(layer, "Layer") is None
    assert torch_probes.registered(Implementation({"Layer": lambda: layer}), "Layer", ()) == {"registered": True}


def test_a_dropouts_probability_is_read_where_the_path_says():
    """Is p read at a dotted path through attributes and list indices, named as code would write it, and nan
    where there is no such module or no number?"""
    layer = torch.nn.Module()
    layer.sublayer = torch.nn.ModuleList([torch.nn.Module()])
    layer.sublayer[0].dropout = torch.nn.Dropout(0.3)
    layer.dropout = torch.nn.Identity()
    assert torch_probes.dropout_probability(layer, "sublayer.0.dropout") == pytest.approx(0.3)
    assert np.isnan(torch_probes.dropout_probability(layer, "dropout"))  # no p
    assert np.isnan(torch_probes.dropout_probability(layer, "sublayer.1.dropout"))  # no such module
    assert torch_probes.dropout_key("sublayer.0.dropout") == "self.sublayer[0].dropout.p"
    assert torch_probes.dropout_key("dropout") == "self.dropout.p"


def test_built_dropouts_builds_with_the_probability_and_reads_each_one():
    """Does built_dropouts pass dropout=p to the constructor and report each dropout's p as built?"""

    class Layer(torch.nn.Module):
        def __init__(self, d_model, dropout=0.1):
            super().__init__()
            self.dropout = torch.nn.Dropout(dropout)
            self.other = torch.nn.Dropout(0.1)

    read = torch_probes.built_dropouts(Implementation({"Layer": Layer}), "Layer", [4], 0.3, ["dropout", "other"])
    assert read == {"self.dropout.p": pytest.approx(0.3), "self.other.p": pytest.approx(0.1)}


def test_a_fixed_dropout_keeps_its_pattern_and_refuses_the_wrong_tensor():
    """Does the fixed dropout scale the kept entries by 1/(1-p) over any leading axes, and refuse a tensor of other
    last axes naming it (where known) and where the dropout belongs?"""
    keep = np.array([[1.0, 0.0], [0.0, 1.0]])
    dropout = torch_probes.fixed_dropout(keep, 0.5, IMPL)
    out = dropout(torch.ones(3, 2, 2))
    assert torch.equal(out, torch.tensor(keep * 2, dtype=torch.float32).expand(3, 2, 2))
    x = torch.ones(2, 3)
    dropout = torch_probes.fixed_dropout(keep, 0.5, IMPL, known={"the layer's input": x})
    with pytest.raises(ContractError, match=r"applied to the layer's input of shape \(2, 3\); it belongs on the att"):
        dropout(x)
    with pytest.raises(ContractError, match=r"applied to a tensor of shape \(3, 3\)"):
        dropout(torch.ones(3, 3))


def test_pair_and_grad():
    """Must a result be a pair, and is the gradient of an unused leaf zero rather than None?"""
    assert torch_probes.pair((1, 2), "attention") == (1, 2)
    with pytest.raises(ContractError, match=r"attention should return a pair \(output, attn_probs\), got Tensor"):
        torch_probes.pair(torch.zeros(2), "attention")
    unused = torch.ones(2, requires_grad=True)
    assert torch.equal(torch_probes.grad(unused), torch.zeros(2))


def test_a_heatmap_is_read_with_its_labels_and_colour_limits():
    """Are an imshow and a pcolormesh read as their data, the tick label of each cell and the colour limits, a
    colorbar's axes being no heatmap?"""
    figure = Figure()
    image_axes, mesh_axes = figure.subplots(1, 2)
    data = np.array([[0.1, 0.9], [0.4, 0.6], [0.5, 0.5]])
    image = image_axes.imshow(data, vmin=0, vmax=1)
    image_axes.set_xticks([0, 1], ["the", "cat"])
    image_axes.set_yticks([0, 2], ["le", "chat"])
    mesh_axes.pcolormesh(data)
    mesh_axes.set_xticks([0.5], ["only"])
    figure.colorbar(image, ax=image_axes)
    found = torch_probes.heatmaps(figure)
    assert len(found) == 2
    drawn, columns, rows, limits = found[0]
    assert np.array_equal(drawn, data) and columns == ["the", "cat"] and rows == ["le", "", "chat"]
    assert limits == (0.0, 1.0)
    assert found[1][1] == ["only", ""] and np.array_equal(found[1][0], data)
    assert not torch_probes.from_pyplot(figure)


def test_pyplot_figures_opened_in_the_block_are_closed():
    """Are the pyplot figures a student's code opens closed after the block, even when it raises, and figures
    opened before it left open?"""
    import matplotlib.pyplot as plt

    before = plt.figure()
    try:
        with pytest.raises(ValueError), torch_probes.pyplot_figures_closed():
            made = plt.figure()
            assert torch_probes.from_pyplot(made)
            raise ValueError("the student's code failed")
        assert made.number not in plt.get_fignums() and before.number in plt.get_fignums()
    finally:
        plt.close(before)
