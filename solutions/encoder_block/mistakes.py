"""The catalogue of known mistakes of the `encoder_block` assignment (see autograder/grade/mistakes.py).

Each entry edits the reference's code of one graded name into a mistake students
make; its message is what the feedback says when a student's outputs match it.
The kit's tests grade every entry and require that it loses points on its own name,
is named in the feedback, and costs nothing on names that do not call that code.
"""

from autograder.grade.authoring import Mistake

# The mistake of the demo's sample submission: the layer's own slip, which no other exercise calls.
DEMO = "encoder_mask_ignored"

MISTAKES = [
    Mistake(
        id="layernorm_unbiased_variance",
        target="LayerNorm",
        old="var = x.var(dim=-1, keepdim=True, unbiased=False)",
        new="var = x.var(dim=-1, keepdim=True)",
        message="The variance divides by d_model - 1 (torch's var and std are unbiased by default, as in the "
        "annotated transformer's x.std(-1)): layer norm divides by d_model. Pass unbiased=False (or correction=0).",
    ),
    Mistake(
        id="layernorm_eps_outside_the_square_root",
        target="LayerNorm",
        old="torch.sqrt(var + self.eps)",
        new="(torch.sqrt(var) + self.eps)",
        message="eps is added to the standard deviation, (x - mean) / (std + eps): it goes inside the square root, "
        "(x - mean) / sqrt(var + eps). The two differ for tokens whose features barely vary.",
    ),
    Mistake(
        id="layernorm_over_the_tokens",
        target="LayerNorm",
        old="mean = x.mean(dim=-1, keepdim=True)  # (..., 1)\n        var = x.var(dim=-1, keepdim=True, unbiased=False)",
        new="mean = x.mean(dim=-2, keepdim=True)\n        var = x.var(dim=-2, keepdim=True, unbiased=False)",
        message="The mean and variance are taken over the tokens (dim=-2), as batch norm does: layer norm takes them "
        "over the features of each token, the last axis (dim=-1).",
    ),
    Mistake(
        id="ffn_relu_missing",
        target="PositionwiseFeedForward",
        old="self.dropout(torch.relu(self.w_1(x)))",
        new="self.dropout(self.w_1(x))",
        message="There is no ReLU between w_1 and w_2: without it the two linear layers are one linear map. "
        "Apply torch.relu to w_1(x).",
    ),
    Mistake(
        id="ffn_gelu_instead_of_relu",
        target="PositionwiseFeedForward",
        old="self.dropout(torch.relu(self.w_1(x)))",
        new="self.dropout(nn.functional.gelu(self.w_1(x)))",
        message="The activation is GELU (as in BERT and GPT): the paper's feed-forward network, and this exercise, "
        "use ReLU, max(0, h).",
    ),
    Mistake(
        id="ffn_dropout_after_w_2",
        target="PositionwiseFeedForward",
        old="hidden = self.dropout(torch.relu(self.w_1(x)))  # (batch, seq, d_ff)\n        return self.w_2(hidden)",
        new="hidden = torch.relu(self.w_1(x))\n        return self.dropout(self.w_2(hidden))",
        message="The dropout acts on the output of w_2 (as nanoGPT's MLP does): here it acts on the hidden layer, "
        "after the ReLU and before w_2 (SublayerConnection drops the sublayer's output).",
    ),
    Mistake(
        id="ffn_dropout_in_eval_mode",
        target="PositionwiseFeedForward",
        old="self.dropout(torch.relu(self.w_1(x)))",
        new="nn.functional.dropout(torch.relu(self.w_1(x)), self.dropout.p)",
        message="The dropout also drops in eval mode: nn.functional.dropout has training=True by default. "
        "Call self.dropout(...), which follows train() and eval(), or pass training=self.training.",
    ),
    Mistake(
        id="ffn_dropout_missing",
        target="PositionwiseFeedForward",
        old="hidden = self.dropout(torch.relu(self.w_1(x)))",
        new="hidden = torch.relu(self.w_1(x))",
        message="The hidden layer gets no dropout in training (d2l's PositionWiseFFN and many tutorials leave it out): "
        "apply self.dropout after the ReLU, before w_2.",
    ),
    Mistake(
        id="sublayer_pre_norm",
        target="SublayerConnection",
        old="return self.norm(x + self.dropout(sublayer(x)))",
        new="return x + self.dropout(sublayer(self.norm(x)))",
        message="This is pre-norm, x + dropout(sublayer(norm(x))), as many implementations (GPT-2, the annotated "
        "transformer) write it: the exercise asks for the paper's post-norm, norm(x + dropout(sublayer(x))).",
    ),
    Mistake(
        id="sublayer_residual_after_the_norm",
        target="SublayerConnection",
        old="return self.norm(x + self.dropout(sublayer(x)))",
        new="return self.norm(self.dropout(sublayer(x))) + x",
        message="x is added after the norm, norm(dropout(sublayer(x))) + x: add x first, then normalise the sum, "
        "norm(x + dropout(sublayer(x))).",
    ),
    Mistake(
        id="sublayer_residual_missing",
        target="SublayerConnection",
        old="return self.norm(x + self.dropout(sublayer(x)))",
        new="return self.norm(self.dropout(sublayer(x)))",
        message="The residual is missing: add the sublayer's input x to its output before the norm, "
        "norm(x + dropout(sublayer(x))).",
    ),
    Mistake(
        id="sublayer_dropout_on_the_sum",
        target="SublayerConnection",
        old="return self.norm(x + self.dropout(sublayer(x)))",
        new="return self.norm(self.dropout(x + sublayer(x)))",
        message="The dropout acts on the residual sum x + sublayer(x), so it also drops parts of x: drop the "
        "sublayer's output only, then add x, norm(x + dropout(sublayer(x))).",
    ),
    Mistake(
        id="sublayer_dropout_after_the_norm",
        target="SublayerConnection",
        old="return self.norm(x + self.dropout(sublayer(x)))",
        new="return self.dropout(self.norm(x + sublayer(x)))",
        message="The dropout acts on the normalised sum, dropout(norm(x + sublayer(x))), as in some public "
        "Transformer blocks: drop the sublayer's output before adding x, norm(x + dropout(sublayer(x))).",
    ),
    Mistake(
        id="encoder_mask_ignored",
        target="EncoderLayer",
        old="self.self_attn(y, y, y, mask)[0]",
        new="self.self_attn(y, y, y)[0]",
        message="The mask is not passed to self-attention, so real tokens attend to the padding: "
        "call self_attn(y, y, y, mask).",
    ),
    Mistake(
        id="encoder_attention_pair_kept",
        target="EncoderLayer",
        old="lambda y: self.self_attn(y, y, y, mask)[0]",
        new="lambda y: self.self_attn(y, y, y, mask)",
        message="The sublayer gives SublayerConnection the pair (output, attn_probs) that self_attn returns: "
        "keep the output only, self_attn(y, y, y, mask)[0].",
    ),
    Mistake(
        id="encoder_d_model_and_d_ff_swapped",
        target="EncoderLayer",
        old="self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)",
        new="self.feed_forward = PositionwiseFeedForward(d_ff, d_model, dropout)",
        message="d_model and d_ff are swapped when the feed-forward network is built: it is "
        "PositionwiseFeedForward(d_model, d_ff, dropout), w_1 widening d_model to d_ff.",
    ),
    Mistake(
        id="encoder_one_sublayer_twice",
        target="EncoderLayer",
        old="nn.ModuleList([SublayerConnection(d_model, dropout) for _ in range(2)])",
        new="nn.ModuleList([SublayerConnection(d_model, dropout)] * 2)",
        message="Both sublayers are the same module ([SublayerConnection(...)] * 2 repeats one object), so the "
        "attention and the feed-forward network share one norm: build two, "
        "[SublayerConnection(d_model, dropout) for _ in range(2)].",
    ),
    Mistake(
        id="layernorm_over_everything",
        target="LayerNorm",
        old="mean = x.mean(dim=-1, keepdim=True)  # (..., 1)\n        var = x.var(dim=-1, keepdim=True, unbiased=False)",
        new="mean = x.mean()\n        var = x.var(unbiased=False)",
        message="The mean and variance are taken over the whole tensor (x.mean() with no dim): every token is "
        "normalised with the statistics of all tokens and sequences. Take them over each token's features, the "
        "last axis: x.mean(dim=-1, keepdim=True).",
    ),
    Mistake(
        id="layernorm_unbiased_std_plus_eps",
        target="LayerNorm",
        old="var = x.var(dim=-1, keepdim=True, unbiased=False)  # (..., 1)\n        return self.weight * (x - mean) / torch.sqrt(var + self.eps) + self.bias",
        new="std = x.std(dim=-1, keepdim=True)\n        return self.weight * (x - mean) / (std + self.eps) + self.bias",
        message="The norm divides by x.std(-1) + eps (the annotated transformer's LayerNorm): two slips at once. "
        "torch's std is unbiased (it divides by d_model - 1), and eps belongs inside the square root. Use "
        "(x - mean) / sqrt(var + eps), var = x.var(-1, keepdim=True, unbiased=False).",
    ),
    Mistake(
        id="layernorm_plain_tensors",
        target="LayerNorm",
        old="self.weight = nn.Parameter(torch.ones(d_model))  # (d_model,)\n        self.bias = nn.Parameter(torch.zeros(d_model))",
        new="self.weight = torch.ones(d_model)\n        self.bias = torch.zeros(d_model)",
        message="weight and bias are plain tensors: the module does not register them, so the optimizer never "
        "trains them (they get no gradient), state_dict() does not save them and .to(device) does not move them. "
        "Wrap them in nn.Parameter(...).",
    ),
    Mistake(
        id="ffn_adds_residual",
        target="PositionwiseFeedForward",
        old="return self.w_2(hidden)",
        new="return x + self.w_2(hidden)",
        message="The feed-forward network adds its own input to its output (x + w_2(...), as code whose FFN holds "
        "its own residual and norm does): here the residual belongs to SublayerConnection, and the network returns "
        "w_2(dropout(relu(w_1(x)))) alone.",
    ),
    Mistake(
        id="ffn_relu_after_w_2",
        target="PositionwiseFeedForward",
        old="return self.w_2(hidden)",
        new="return torch.relu(self.w_2(hidden))",
        message="A ReLU follows w_2 too, so the network's output is never negative: the ReLU goes between the two "
        "layers only, w_2(dropout(relu(w_1(x)))).",
    ),
    Mistake(
        id="ffn_dropout_probability_fixed",
        target="PositionwiseFeedForward",
        old="self.w_2 = nn.Linear(d_ff, d_model)  # narrows back: weight (d_model, d_ff)\n        self.dropout = nn.Dropout(p=dropout)",
        new="self.w_2 = nn.Linear(d_ff, d_model)\n        self.dropout = nn.Dropout(p=0.1)",
        message="self.dropout's probability is fixed (nn.Dropout(0.1)), whatever the dropout argument: build "
        "self.dropout = nn.Dropout(dropout) with the probability given.",
    ),
    Mistake(
        id="sublayer_dropout_probability_fixed",
        target="SublayerConnection",
        old="self.norm = LayerNorm(d_model)\n        self.dropout = nn.Dropout(p=dropout)",
        new="self.norm = LayerNorm(d_model)\n        self.dropout = nn.Dropout(p=0.1)",
        message="self.dropout's probability is fixed (nn.Dropout(0.1)), whatever the dropout argument: build "
        "self.dropout = nn.Dropout(dropout) with the probability given.",
    ),
    Mistake(
        id="encoder_sublayers_in_a_list",
        target="EncoderLayer",
        old="self.sublayer = nn.ModuleList([SublayerConnection(d_model, dropout) for _ in range(2)])",
        new="self.sublayer = [SublayerConnection(d_model, dropout) for _ in range(2)]",
        message="The sublayers are kept in a Python list, which the layer does not register: .eval() never reaches "
        "them (their dropout stays on when the layer is evaluated), and .parameters() and .to(device) miss their "
        "norms. Keep them in nn.ModuleList([...]).",
    ),
    Mistake(
        id="encoder_first_sublayer_twice",
        target="EncoderLayer",
        old="return self.sublayer[1](x, self.feed_forward)",
        new="return self.sublayer[0](x, self.feed_forward)",
        message="sublayer[0] wraps the feed-forward network too, so one norm serves both sublayers and sublayer[1] "
        "is never used: the feed-forward network goes through sublayer[1].",
    ),
    Mistake(
        id="layernorm_over_the_sequence",
        target="LayerNorm",
        old="mean = x.mean(dim=-1, keepdim=True)  # (..., 1)\n        var = x.var(dim=-1, keepdim=True, unbiased=False)",
        new="mean = x.mean(dim=(-2, -1), keepdim=True)\n        var = x.var(dim=(-2, -1), keepdim=True, unbiased=False)",
        message="The mean and variance are taken over a whole sequence (dim=(-2, -1): its tokens and their "
        "features), so every token is normalised with the statistics of its neighbours: take them over each "
        "token's own features, the last axis only, x.mean(dim=-1, keepdim=True).",
    ),
    Mistake(
        id="layernorm_eps_not_kept",
        target="LayerNorm",
        old="""self.eps = eps
        ### END SOLUTION

    def forward(self, x):
        ### BEGIN SOLUTION
        mean = x.mean(dim=-1, keepdim=True)  # (..., 1)
        var = x.var(dim=-1, keepdim=True, unbiased=False)  # (..., 1)
        return self.weight * (x - mean) / torch.sqrt(var + self.eps)""",
        new="""### END SOLUTION

    def forward(self, x):
        ### BEGIN SOLUTION
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        return self.weight * (x - mean) / torch.sqrt(var + 1e-5)""",
        message="The eps given is not kept: the norm adds 1e-5 whatever eps it was built with, and has no self.eps. "
        "Keep the argument as the attribute self.eps in __init__, and add self.eps to the variance.",
    ),
    Mistake(
        id="ffn_dropout_on_the_input",
        target="PositionwiseFeedForward",
        old="hidden = self.dropout(torch.relu(self.w_1(x)))",
        new="hidden = torch.relu(self.w_1(self.dropout(x)))",
        message="The dropout acts on the network's input x: it acts on the hidden layer, after the ReLU and before "
        "w_2, w_2(dropout(relu(w_1(x)))) (SublayerConnection drops the sublayer's output).",
    ),
    Mistake(
        id="encoder_attention_dropout_not_passed",
        target="EncoderLayer",
        old="self.self_attn = MultiHeadAttention(d_model, n_heads, dropout)",
        new="self.self_attn = MultiHeadAttention(d_model, n_heads)",
        message="self_attn is built without the dropout given, so MultiHeadAttention keeps its default 0.1 (and a "
        "layer built with dropout=0 still drops attention weights): pass it on, "
        "MultiHeadAttention(d_model, n_heads, dropout), as to the feed-forward network and both sublayers.",
    ),
    Mistake(
        id="encoder_sublayers_swapped",
        target="EncoderLayer",
        old="x = self.sublayer[0](x, lambda y: self.self_attn(y, y, y, mask)[0])  # (batch, seq, d_model)\n        return self.sublayer[1](x, self.feed_forward)",
        new="x = self.sublayer[0](x, self.feed_forward)\n        return self.sublayer[1](x, lambda y: self.self_attn(y, y, y, mask)[0])",
        message="The feed-forward network comes first and self-attention second: the layer attends first, "
        "x = sublayer[0](x, attend), then feeds each token forward, sublayer[1](x, self.feed_forward).",
    ),
    Mistake(
        id="encoder_extra_residual",
        target="EncoderLayer",
        old="x = self.sublayer[0](x, lambda y: self.self_attn(y, y, y, mask)[0])",
        new="x = x + self.sublayer[0](x, lambda y: self.self_attn(y, y, y, mask)[0])",
        message="x is added to what SublayerConnection returns, a second residual: SublayerConnection already adds "
        "x (and normalises the sum), so the layer takes its result as it is, x = sublayer[0](x, attend).",
    ),
    Mistake(
        id="encoder_feed_forward_forgotten",
        target="EncoderLayer",
        old="return self.sublayer[1](x, self.feed_forward)",
        new="return x",
        message="The layer returns after self-attention: the feed-forward network never runs. Return "
        "sublayer[1](x, self.feed_forward).",
    ),
    Mistake(
        id="encoder_sublayer_given_a_tensor",
        target="EncoderLayer",
        old="x = self.sublayer[0](x, lambda y: self.self_attn(y, y, y, mask)[0])",
        new="x = self.sublayer[0](x, self.self_attn(x, x, x, mask)[0])",
        message="SublayerConnection is given a tensor, the output of self_attn(x, x, x, mask), where it takes a "
        "function that it calls on its input (hence \"'Tensor' object is not callable\"): pass "
        "lambda y: self.self_attn(y, y, y, mask)[0], and the module self.feed_forward itself, not its output.",
    ),
    Mistake(
        id="encoder_mask_inverted",
        target="EncoderLayer",
        old="self.self_attn(y, y, y, mask)[0]",
        new="self.self_attn(y, y, y, None if mask is None else ~mask)[0]",
        message="The mask reaches self-attention inverted (~mask): here True marks a real token, which may be "
        "attended to, and False the padding (the convention of MultiHeadAttention's mask). Pass the mask as it is.",
    ),
]

# ---------------------------------------------------------------- families: one slip, several values
# Each entry below stands for one mistake per value (autograder/grade/mistakes.py).

MISTAKES += [
    Mistake(
        id="layernorm_default_eps_{name}",
        target="LayerNorm",
        old="def __init__(self, d_model, eps=1e-5):",
        new="def __init__(self, d_model, eps={eps}):",
        message="LayerNorm's default eps is {eps} ({where}): the contract's default, like nn.LayerNorm's, is "
        "eps=1e-5, and SublayerConnection builds LayerNorm(d_model) with the default, so every norm of the layer "
        "uses it. Make the default eps=1e-5.",
        values=[
            {
                "name": "1e_6",
                "eps": "1e-6",
                "where": "as code that builds nn.LayerNorm(d_model, eps=1e-6) has it",
                "pattern": r"(1e-0*6|10\s*\*\*\s*-6)",
            },
            {"name": "1e_12", "eps": "1e-12", "where": "BERT's value", "pattern": r"1e-12"},
        ],
        line=r"eps\s*(:\s*float\s*)?=\s*{pattern}",
    ),
    Mistake(
        id="ffn_dropout_never_built",
        target="PositionwiseFeedForward",
        old="""        self.dropout = nn.Dropout(p=dropout)
        ### END SOLUTION

    def forward(self, x):
        ### BEGIN SOLUTION
        hidden = self.dropout(torch.relu(self.w_1(x)))""",
        new="""        ### END SOLUTION

    def forward(self, x):
        ### BEGIN SOLUTION
        hidden = torch.relu(self.w_1(x))""",
        message="The feed-forward network has no dropout: build self.dropout = nn.Dropout(dropout) and apply it to "
        "the hidden layer, w_2(dropout(relu(w_1(x)))) (it acts in training only).",
    ),
    Mistake(
        id="encoder_feed_forward_given_the_layer_input",
        target="EncoderLayer",
        old="x = self.sublayer[0](x, lambda y: self.self_attn(y, y, y, mask)[0])  # (batch, seq, d_model)\n        return self.sublayer[1](x, self.feed_forward)",
        new="attended = self.sublayer[0](x, lambda y: self.self_attn(y, y, y, mask)[0])\n        return self.sublayer[1](x, self.feed_forward)",
        message="The feed-forward sublayer is given the layer's input, not what the attention sublayer returned: "
        "the attention's result is thrown away. Feed sublayer[1] the output of sublayer[0].",
    ),
]
