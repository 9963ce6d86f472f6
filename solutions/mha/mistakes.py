"""The catalogue of known mistakes of the `mha` assignment (see autograder/grade/mistakes.py).

Each entry edits the reference's code of one graded name into a mistake students
make; its message is what the feedback says when a student's outputs match it.
The kit's tests grade every entry and require that it loses points on its own name,
is named in the feedback, and costs nothing on names that do not call that code.
"""

from autograder.grade.authoring import Mistake

# The mistake of the demo's sample submission: the seed notebook's own slip, which no other exercise calls.
DEMO = "positional_cosine_exponent_off_by_one"

MISTAKES = [
    Mistake(
        id="tokenize_keeps_case",
        target="tokenize",
        old='text.lower().translate(str.maketrans("", "", string.punctuation))',
        new='text.translate(str.maketrans("", "", string.punctuation))',
        message="Capital letters are kept: lowercase the text first (text.lower()), so 'The' and 'the' are one token.",
    ),
    Mistake(
        id="tokenize_keeps_punctuation",
        target="tokenize",
        old='text.lower().translate(str.maketrans("", "", string.punctuation))',
        new="text.lower()",
        message="Punctuation stays attached to words ('split?'): remove every character of string.punctuation before splitting.",
    ),
    Mistake(
        id="tokenize_splits_on_single_spaces",
        target="tokenize",
        old="return without_punctuation.split()",
        new='return without_punctuation.split(" ")',
        message="split(' ') leaves empty tokens where spaces repeat and keeps tabs and newlines inside tokens: call split() with no argument.",
    ),
    Mistake(
        id="vocab_unsorted",
        target="build_vocab",
        old="words = sorted({token for text in texts for token in tokenize(text)})",
        new="words = list(dict.fromkeys(token for text in texts for token in tokenize(text)))",
        message="The words are numbered in the order they first appear: sort the unique tokens before giving them ids 2, 3, ...",
    ),
    Mistake(
        id="vocab_without_specials",
        target="build_vocab",
        old="stoi = {PAD: 0, UNK: 1}",
        new="stoi = {}",
        message="'<pad>' and '<unk>' are missing: start the vocabulary with {'<pad>': 0, '<unk>': 1}, then number the words from 2.",
    ),
    Mistake(
        id="encode_pads_on_the_left",
        target="encode",
        old="rows = [row[:length] + [stoi[PAD]] * (length - len(row[:length])) for row in ids]",
        new="rows = [[stoi[PAD]] * (length - len(row[:length])) + row[:length] for row in ids]",
        message="The padding is on the left: put the '<pad>' ids after the tokens (right padding).",
    ),
    Mistake(
        id="encode_ignores_max_length",
        target="encode",
        old="length = max_length if max_length is not None else max(len(row) for row in ids)",
        new="length = max(len(row) for row in ids)",
        message="max_length is ignored: pad (or cut) every row to max_length when it is given.",
    ),
    Mistake(
        id="encode_unknown_as_padding",
        target="encode",
        old="ids = [[stoi.get(token, stoi[UNK]) for token in tokenize(text)] for text in texts]",
        new="ids = [[stoi.get(token, stoi[PAD]) for token in tokenize(text)] for text in texts]",
        message="Unknown words get the '<pad>' id: they should get stoi['<unk>'].",
    ),
    Mistake(
        id="embeddings_not_scaled",
        target="Embeddings",
        old="return self.lut(x) * math.sqrt(self.d_model)",
        new="return self.lut(x)",
        message="The embeddings are not scaled: multiply lut(x) by sqrt(d_model).",
    ),
    Mistake(
        id="embeddings_scaled_by_d_model",
        target="Embeddings",
        old="return self.lut(x) * math.sqrt(self.d_model)",
        new="return self.lut(x) * self.d_model",
        message="The embeddings are multiplied by d_model: the scale is sqrt(d_model).",
    ),
    Mistake(
        id="positional_sin_cos_swapped",
        target="PositionalEncoding",
        old="pe[:, 0::2] = torch.sin(angle)\n        pe[:, 1::2] = torch.cos(angle)",
        new="pe[:, 0::2] = torch.cos(angle)\n        pe[:, 1::2] = torch.sin(angle)",
        message="Sine and cosine are swapped: even features (0, 2, 4, ...) take the sine, odd ones the cosine.",
    ),
    Mistake(
        id="positional_cosine_exponent_off_by_one",
        target="PositionalEncoding",
        old="pe[:, 1::2] = torch.cos(angle)",
        new="pe[:, 1::2] = torch.cos(position / 10000 ** ((two_i + 1) / d_model))",
        message="The cosine of feature 2i+1 uses the exponent (2i+1)/d_model: both features of a pair share the exponent 2i/d_model.",
    ),
    Mistake(
        id="positional_exponent_without_two",
        target="PositionalEncoding",
        old="angle = position / 10000 ** (two_i / d_model)",
        new="angle = position / 10000 ** (two_i / 2 / d_model)",
        message="The frequencies use i/d_model: the exponent of pair i is 2i/d_model (the even feature's index over d_model).",
    ),
    Mistake(
        id="positional_dropout_missing",
        target="PositionalEncoding",
        old="return self.dropout(x + self.pe[:, : x.size(1)])",
        new="return x + self.pe[:, : x.size(1)]",
        message="Dropout is not applied: return self.dropout(x + pe[:, :seq]).",
    ),
    Mistake(
        id="split_heads_without_transpose",
        target="split_heads",
        old="x = x.reshape(batch, seq, n_heads, d_model // n_heads)  # (batch, seq, n_heads, d_key)\n    return x.transpose(1, 2)",
        new="return x.reshape(batch, n_heads, seq, d_model // n_heads)",
        message="Reshaping straight to (batch, n_heads, seq, d_key) mixes tokens into heads: reshape to (batch, seq, n_heads, d_key) first, then swap axes 1 and 2.",
    ),
    Mistake(
        id="combine_heads_without_transpose",
        target="combine_heads",
        old="    x = x.transpose(1, 2)  # (batch, seq, n_heads, d_key)\n",
        new="",
        message="The heads are merged without swapping the axes back: transpose (batch, n_heads, seq, d_key) to (batch, seq, n_heads, d_key) before reshaping.",
    ),
    Mistake(
        id="attention_not_scaled",
        target="scaled_dot_product_attention",
        old="scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)",
        new="scores = query @ key.transpose(-2, -1)",
        message="The scores are not scaled: divide Q K^T by sqrt(d_k), d_k being the width of the queries (their last axis), before the softmax.",
    ),
    Mistake(
        id="attention_scaled_by_d_k",
        target="scaled_dot_product_attention",
        old="scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)",
        new="scores = query @ key.transpose(-2, -1) / d_k",
        message="The scores are divided by d_k: the scale is 1/sqrt(d_k).",
    ),
    Mistake(
        id="softmax_over_queries",
        target="scaled_dot_product_attention",
        old="attn_probs = scores.softmax(dim=-1)",
        new="attn_probs = scores.softmax(dim=-2)",
        message="The softmax runs over the queries: it must run over the keys (dim=-1), so that each query's weights sum to 1.",
    ),
    Mistake(
        id="mask_inverted",
        target="scaled_dot_product_attention",
        old='scores = scores.masked_fill(mask == 0, float("-inf"))',
        new='scores = scores.masked_fill(mask != 0, float("-inf"))',
        message="The mask is inverted: block the keys where the mask is 0 (False), not where it is 1.",
    ),
    Mistake(
        id="mask_ignored",
        target="scaled_dot_product_attention",
        old='scores = scores.masked_fill(mask == 0, float("-inf"))',
        new='scores.masked_fill(mask == 0, float("-inf"))',
        message="The mask has no effect: masked_fill returns a new tensor, so assign its result (or use masked_fill_).",
    ),
    Mistake(
        id="mask_filled_with_zero",
        target="scaled_dot_product_attention",
        old='scores = scores.masked_fill(mask == 0, float("-inf"))',
        new="scores = scores.masked_fill(mask == 0, 0.0)",
        message="Blocked scores are set to 0 (or to a number close to it, such as -1e-9, or multiplied by the mask), "
        "which still gets weight after the softmax: set them to -inf (or a very large negative number, -1e9).",
    ),
    Mistake(
        id="dropout_after_values",
        target="scaled_dot_product_attention",
        old="weights = attn_probs if dropout is None else dropout(attn_probs)\n    return weights @ value, attn_probs",
        new="output = attn_probs @ value\n    return (output if dropout is None else dropout(output)), attn_probs",
        message="Dropout is applied to the output: apply it to the attention weights, before they multiply V.",
    ),
    Mistake(
        id="probs_returned_after_dropout",
        target="scaled_dot_product_attention",
        old="weights = attn_probs if dropout is None else dropout(attn_probs)\n    return weights @ value, attn_probs",
        new="attn_probs = attn_probs if dropout is None else dropout(attn_probs)\n    return attn_probs @ value, attn_probs",
        message="The returned attn_probs are the weights after dropout: return them as they were before dropout.",
    ),
    Mistake(
        id="padding_mask_without_broadcast_axes",
        target="make_padding_mask",
        old="return (token_ids != pad_id)[:, None, None, :]",
        new="return token_ids != pad_id",
        message="The mask has shape (batch, seq): add two axes, (batch, 1, 1, seq), so it broadcasts over heads and queries.",
    ),
    Mistake(
        id="padding_mask_inverted",
        target="make_padding_mask",
        old="return (token_ids != pad_id)[:, None, None, :]",
        new="return (token_ids == pad_id)[:, None, None, :]",
        message="The mask is true on the padding: it must be true where the token is NOT padding.",
    ),
    Mistake(
        id="padding_mask_float",
        target="make_padding_mask",
        old="return (token_ids != pad_id)[:, None, None, :]",
        new="return (token_ids != pad_id)[:, None, None, :].float()",
        message="The mask is float: return a bool tensor (a comparison, or dtype=torch.bool), so that masks combine with &.",
    ),
    Mistake(
        id="causal_mask_above_diagonal",
        target="make_causal_mask",
        old="torch.tril(torch.ones(size, size, dtype=torch.bool))",
        new="torch.triu(torch.ones(size, size, dtype=torch.bool))",
        message="The mask is true above the diagonal, letting each position see the future: use torch.tril (on and below the diagonal).",
    ),
    Mistake(
        id="causal_mask_without_diagonal",
        target="make_causal_mask",
        old="torch.tril(torch.ones(size, size, dtype=torch.bool))",
        new="torch.tril(torch.ones(size, size, dtype=torch.bool), diagonal=-1)",
        message="The diagonal is blocked, so a position cannot see itself: keep the diagonal (torch.tril with diagonal=0).",
    ),
    Mistake(
        id="causal_mask_float",
        target="make_causal_mask",
        old="torch.tril(torch.ones(size, size, dtype=torch.bool))",
        new="torch.tril(torch.ones(size, size))",
        message="The mask is float (torch.ones makes float32 unless told otherwise): return a bool tensor (a comparison, or dtype=torch.bool), so that masks combine with &.",
    ),
    Mistake(
        id="output_projection_missing",
        target="MultiHeadAttention",
        old="return self.Wo(combine_heads(A)), attn_probs",
        new="return combine_heads(A), attn_probs",
        message="The output projection is missing: pass the combined heads through self.Wo.",
    ),
    Mistake(
        id="keys_and_values_from_the_query",
        target="MultiHeadAttention",
        old="K = split_heads(self.Wk(key), self.n_heads)  # (batch, n_heads, k_len, d_key)\n        V = split_heads(self.Wv(value), self.n_heads)",
        new="K = split_heads(self.Wk(query), self.n_heads)\n        V = split_heads(self.Wv(query), self.n_heads)",
        message="The keys and values are computed from the query argument: project key with Wk and value with Wv (in cross-attention they differ from the query).",
    ),
    Mistake(
        id="mha_mask_not_passed",
        target="MultiHeadAttention",
        old="scaled_dot_product_attention(Q, K, V, mask, self.dropout)",
        new="scaled_dot_product_attention(Q, K, V, None, self.dropout)",
        message="The mask is not passed on: give forward's mask to the attention of every head.",
    ),
    Mistake(
        id="display_axes_swapped",
        target="display_attention",
        old="ax.set_xticks(range(len(sentence)), labels=sentence, rotation=90)\n        ax.set_yticks(range(len(translation)), labels=translation)",
        new="ax.set_xticks(range(len(translation)), labels=translation, rotation=90)\n        ax.set_yticks(range(len(sentence)), labels=sentence)",
        message="The tick labels are swapped: the sentence (keys) labels the columns (x axis), the translation (queries) the rows.",
    ),
    Mistake(
        id="tokenize_keeps_underscore",
        target="tokenize",
        old='text.lower().translate(str.maketrans("", "", string.punctuation))',
        new='text.lower().translate(str.maketrans("", "", string.punctuation.replace("_", "")))',
        message="The underscore '_' is kept: a regular expression's \\w (and so [^\\w\\s]) counts it as a letter, but it is in string.punctuation and must go too. Look for a pattern built on \\w.",
    ),
    Mistake(
        id="tokenize_strips_word_ends_only",
        target="tokenize",
        old="return without_punctuation.split()",
        new="return [word.strip(string.punctuation) for word in text.lower().split()]",
        message='Punctuation is removed only at the ends of words (word.strip(...)): "don\'t" and "dry-clean" keep theirs, and a word made only of punctuation becomes an empty token \'\'. Delete every punctuation character from the whole text, then split.',
    ),
    Mistake(
        id="tokenize_punctuation_to_spaces",
        target="tokenize",
        old='text.lower().translate(str.maketrans("", "", string.punctuation))',
        new='text.lower().translate(str.maketrans(dict.fromkeys(".,!?;:()[]{}" + chr(34) + chr(39), " ")))',
        message="Punctuation from a list of your own is replaced by a space: \"cat's\" becomes two tokens, 'cat' and 's', and characters missing from the list ('-', '_', '$', '@', ...) stay. Delete (do not replace) every character of string.punctuation.",
    ),
    Mistake(
        id="vocab_specials_swapped",
        target="build_vocab",
        old="stoi = {PAD: 0, UNK: 1}",
        new="stoi = {UNK: 0, PAD: 1}",
        message="'<unk>' has id 0 and '<pad>' id 1 (the order of PyTorch's translation tutorial): here '<pad>' is 0 and '<unk>' is 1. Check the order of your special tokens.",
    ),
    Mistake(
        id="vocab_by_frequency",
        target="build_vocab",
        old="words = sorted({token for text in texts for token in tokenize(text)})",
        new="words = sorted({token for text in texts for token in tokenize(text)}, key=lambda word: (-sum(tokenize(text).count(word) for text in texts), word))",
        message="The words are numbered by how often they occur, most frequent first (as torchtext's build_vocab_from_iterator does): number the unique tokens in sorted (alphabetical) order instead.",
    ),
    Mistake(
        id="encode_truncates_the_start",
        target="encode",
        old="rows = [row[:length] + [stoi[PAD]] * (length - len(row[:length])) for row in ids]",
        new="rows = [row[-length:] + [stoi[PAD]] * (length - len(row[-length:])) for row in ids]",
        message="Rows longer than max_length lose their FIRST tokens (Keras' pad_sequences cuts at the front by default): keep the first max_length ids of each row.",
    ),
    Mistake(
        id="encode_ids_int32",
        target="encode",
        old="return torch.tensor(rows, dtype=torch.long)",
        new="return torch.tensor(rows, dtype=torch.int32)",
        message="The ids are int32 (NumPy's and Keras' usual integer type): return a LongTensor (int64), the type nn.Embedding and the contract expect. Look at the dtype where you build the tensor.",
    ),
    Mistake(
        id="embeddings_padding_idx",
        target="Embeddings",
        old="self.lut = nn.Embedding(vocab_size, d_model)",
        new="self.lut = nn.Embedding(vocab_size, d_model, padding_idx=0)",
        message="The table is built with padding_idx: the row of that id never gets a gradient, so it is never trained. The contract's lut is a plain nn.Embedding(vocab_size, d_model); the mask, not the embedding, keeps padding out of attention.",
    ),
    Mistake(
        id="positional_exponent_doubled",
        target="PositionalEncoding",
        old="angle = position / 10000 ** (two_i / d_model)",
        new="angle = position / 10000 ** (2 * two_i / d_model)",
        message="The exponent is doubled: when the loop index already runs over 0, 2, 4, ..., it is 2i itself, and 2 * index / d_model gives 10000^(4i/d_model). Use index / d_model for an index that steps by 2.",
    ),
    Mistake(
        id="positional_exponent_per_column",
        target="PositionalEncoding",
        old="pe[:, 0::2] = torch.sin(angle)\n        pe[:, 1::2] = torch.cos(angle)",
        new="pe[:, 0::2] = torch.sin(position / 10000 ** (2 * two_i / d_model))\n        pe[:, 1::2] = torch.cos(position / 10000 ** ((2 * two_i + 2) / d_model))",
        message="Each column has its own exponent, 2 * column / d_model: the two columns of a pair share one frequency, 10000^(2i/d_model) for columns 2i and 2i+1. Compute the angle per pair, not per column.",
    ),
    Mistake(
        id="positional_sin_cos_concatenated",
        target="PositionalEncoding",
        old="pe[:, 0::2] = torch.sin(angle)\n        pe[:, 1::2] = torch.cos(angle)",
        new="pe[:, : d_model // 2] = torch.sin(angle)\n        pe[:, d_model // 2 :] = torch.cos(angle)",
        message="The sines fill the first half of the columns and the cosines the second half (concatenated): interleave them, the sine in the even columns [:, 0::2] and the cosine in the odd ones [:, 1::2].",
    ),
    Mistake(
        id="positional_table_not_a_buffer",
        target="PositionalEncoding",
        old='self.register_buffer("pe", pe.unsqueeze(0).float())',
        new="self.pe = pe.unsqueeze(0).float()",
        message="The table is a plain attribute: it is not saved with the module's state_dict and .to(device) does not move it. Register it: self.register_buffer('pe', table).",
    ),
    Mistake(
        id="positional_table_trainable",
        target="PositionalEncoding",
        old='self.register_buffer("pe", pe.unsqueeze(0).float())',
        new="self.pe = nn.Parameter(pe.unsqueeze(0).float())",
        message="The table is an nn.Parameter, so the optimizer trains it: the sinusoidal table is fixed. Register it with self.register_buffer('pe', table) instead.",
    ),
    Mistake(
        id="positional_sequence_first",
        target="PositionalEncoding",
        old='self.register_buffer("pe", pe.unsqueeze(0).float())  # (1, max_length, d_model)\n        ### END SOLUTION\n\n    def forward(self, x):\n        ### BEGIN SOLUTION\n        return self.dropout(x + self.pe[:, : x.size(1)])',
        new='self.register_buffer("pe", pe.unsqueeze(1).float())\n        ### END SOLUTION\n\n    def forward(self, x):\n        ### BEGIN SOLUTION\n        return self.dropout(x + self.pe[: x.size(0)])',
        message="The table and the indexing are sequence-first, (max_length, 1, d_model) and pe[:x.size(0)], as in PyTorch's nn.Transformer tutorials: here x is batch-first, (batch, seq, d_model), so keep pe as (1, max_length, d_model) and add pe[:, :seq].",
    ),
    Mistake(
        id="positional_scales_x",
        target="PositionalEncoding",
        old="return self.dropout(x + self.pe[:, : x.size(1)])",
        new="return self.dropout(x * math.sqrt(x.size(-1)) + self.pe[:, : x.size(1)])",
        message="x is multiplied by sqrt(d_model) before the table is added (as in some Transformer tutorials' PositionalEncoder): that scale belongs to Embeddings. Here forward returns dropout(x + pe[:, :seq]).",
    ),
    Mistake(
        id="attention_key_T",
        target="scaled_dot_product_attention",
        old="scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)",
        new="scores = query @ key.T / math.sqrt(d_k)",
        message="key.T reverses ALL the axes of a 3-D or 4-D tensor (right for a 2-D matrix only): swap the last two with key.transpose(-2, -1).",
    ),
    Mistake(
        id="softmax_dim_3",
        target="scaled_dot_product_attention",
        old="attn_probs = scores.softmax(dim=-1)",
        new="attn_probs = scores.softmax(dim=3)",
        message="The softmax runs over dim=3, the keys of 4-D scores only: for 3-D inputs it is out of range. Use dim=-1, the last axis, whatever the number of leading axes.",
    ),
    Mistake(
        id="softmax_over_d_k",
        target="scaled_dot_product_attention",
        old="attn_probs = scores.softmax(dim=-1)",
        new="attn_probs = scores.softmax(dim=d_k)",
        message="The softmax's dim is given d_k, a width, not an axis: it is out of range or picks another axis. Use dim=-1 (the keys).",
    ),
    Mistake(
        id="mask_as_documented_bias",
        target="scaled_dot_product_attention",
        old='scores = scores.masked_fill(mask == 0, float("-inf"))',
        new='bias = torch.zeros(scores.shape[-2:], dtype=scores.dtype)\n        if mask.dtype == torch.bool:\n            bias.masked_fill_(mask.logical_not(), float("-inf"))\n        else:\n            bias = mask + bias\n        scores = scores + bias',
        message="The mask becomes a (q_len, k_len) bias filled in place, as in the 'equivalent' code of PyTorch's scaled_dot_product_attention documentation: a (batch, 1, 1, k_len) mask cannot be written into it, and a 0/1 integer mask is ADDED to the scores instead of blocking the zeros. Block the blocked keys' scores with masked_fill on the scores themselves: it broadcasts any mask shape the contract allows.",
    ),
    Mistake(
        id="combine_heads_view_not_contiguous",
        target="combine_heads",
        old="return x.reshape(batch, seq, n_heads * d_key)",
        new="return x.view(batch, seq, n_heads * d_key)",
        message="view() on the transposed tensor fails: after transpose the memory is no longer contiguous. Use reshape(...), or call .contiguous() before .view(...).",
    ),
    Mistake(
        id="causal_mask_marks_the_future",
        target="make_causal_mask",
        old="torch.tril(torch.ones(size, size, dtype=torch.bool))",
        new="torch.triu(torch.ones(size, size, dtype=torch.bool), diagonal=1)",
        message="The mask marks the positions to HIDE (above the diagonal), as TensorFlow's look-ahead mask (1 = hide) and nn.Transformer's float mask (-inf = hide, 0 = see) do: here the mask is True (nonzero) where attending is allowed, on and below the diagonal.",
    ),
    Mistake(
        id="causal_mask_without_head_axis",
        target="make_causal_mask",
        old="[None, None]  # (1, 1, size, size)",
        new="[None]",
        message="The mask has 3 axes, (1, size, size) (code whose layer adds the head axis itself): give it the shape (1, 1, size, size), so that it broadcasts over the batch and the heads.",
    ),
    Mistake(
        id="padding_mask_long",
        target="make_padding_mask",
        old="return (token_ids != pad_id)[:, None, None, :]",
        new="return (token_ids != pad_id).long()[:, None, None, :]",
        message="The mask holds integers, 1 where the token counts (as Hugging Face's attention_mask does): return a bool tensor (the comparison itself, without .long()), so that masks combine with & into a bool mask.",
    ),
    Mistake(
        id="mha_without_divisibility_check",
        target="MultiHeadAttention",
        old='        if d_model % n_heads != 0:\n            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")\n',
        new="",
        message="The constructor accepts an n_heads that does not divide d_model (the error only comes later, in forward, if at all): check d_model % n_heads in __init__ and raise an error that says so.",
    ),
    Mistake(
        id="mha_projections_without_bias",
        target="MultiHeadAttention",
        old="self.Wq = nn.Linear(d_model, d_model)  # query projection\n        self.Wk = nn.Linear(d_model, d_model)  # key projection\n        self.Wv = nn.Linear(d_model, d_model)  # value projection",
        new="self.Wq = nn.Linear(d_model, d_model, bias=False)\n        self.Wk = nn.Linear(d_model, d_model, bias=False)\n        self.Wv = nn.Linear(d_model, d_model, bias=False)",
        message="The query, key and value projections have no bias (bias=False, or qkv_bias=False as in some GPT code): the contract's Wq, Wk, Wv and Wo are nn.Linear(d_model, d_model) with their default bias.",
    ),
    Mistake(
        id="mha_scaled_by_d_model",
        target="MultiHeadAttention",
        old="A, attn_probs = scaled_dot_product_attention(Q, K, V, mask, self.dropout)",
        new="A, attn_probs = scaled_dot_product_attention(Q / math.sqrt(self.n_heads), K, V, mask, self.dropout)",
        message="Each head's scores are divided by sqrt(d_model) (the embedding size): a head's queries and keys have d_key = d_model // n_heads features, so divide by sqrt(d_key).",
    ),
    Mistake(
        id="mha_mask_gets_an_extra_axis",
        target="MultiHeadAttention",
        old="A, attn_probs = scaled_dot_product_attention(Q, K, V, mask, self.dropout)\n        return self.Wo(combine_heads(A)), attn_probs",
        new="A, attn_probs = scaled_dot_product_attention(Q, K, V, None if mask is None else mask.unsqueeze(1), self.dropout)\n        return self.Wo(A.transpose(1, 2).reshape(query.size(0), -1, query.size(-1))), attn_probs",
        message="The layer adds an axis to the mask (mask.unsqueeze(1), from code written for 3-D masks): the masks given here are already 4-D, (batch or 1, 1, q_len or 1, k_len), so the scores become 5-D. Pass the mask on as it is.",
    ),
    Mistake(
        id="mha_output_dropped_again",
        target="MultiHeadAttention",
        old="return self.Wo(combine_heads(A)), attn_probs",
        new="return nn.functional.dropout(self.Wo(combine_heads(A)), self.dropout.p, self.training), attn_probs",
        message="The layer's output goes through dropout again after Wo (nanoGPT's resid_dropout): in this layer, dropout applies to the attention weights only. Remove the second dropout.",
    ),
    Mistake(
        id="mha_returns_output_only",
        target="MultiHeadAttention",
        old="return self.Wo(combine_heads(A)), attn_probs",
        new="return self.Wo(combine_heads(A))",
        message="forward returns the output alone: return the pair (output, attn_probs), the attention weights of every head.",
    ),
    Mistake(
        id="display_without_detach",
        target="display_attention",
        old="attention = attention.detach().cpu().reshape(n_heads, len(translation), len(sentence))",
        new="attention = attention.cpu().reshape(n_heads, len(translation), len(sentence))",
        message="The weights are not detached: .numpy() refuses a tensor that carries gradients, as a layer's attn_probs do. Call attention.detach().cpu() before .numpy().",
    ),
    Mistake(
        id="display_grid_squeezed",
        target="display_attention",
        old="    for head in range(n_heads):\n        ax = fig.add_subplot(n_rows, n_cols, head + 1)\n",
        new="    axes = fig.subplots(n_rows, n_cols)\n    for head, ax in zip(range(n_heads), axes.flatten()):\n",
        message="subplots(1, 1) returns one Axes, not an array, so axes.flatten() fails for a one-head grid: pass squeeze=False to subplots, or add one subplot per head with fig.add_subplot(n_rows, n_cols, head + 1).",
    ),
    Mistake(
        id="display_labels_without_locator",
        target="display_attention",
        old="ax.set_xticks(range(len(sentence)), labels=sentence, rotation=90)\n        ax.set_yticks(range(len(translation)), labels=translation)",
        new='ax.set_xticklabels([""] + sentence, rotation=90)\n        ax.set_yticklabels([""] + translation)',
        message="The labels ([''] + tokens) sit on matplotlib's automatic ticks, which fall on every cell only for short sentences (about 9 tokens): from 10 on they are off. Give every cell its own tick and label (set the tick positions with the labels, or a MultipleLocator(1)), with no '' in front.",
    ),
    Mistake(
        id="display_colours_not_fixed",
        target="display_attention",
        old='ax.matshow(attention[head].numpy(), cmap="bone", vmin=0, vmax=1)',
        new='ax.matshow(attention[head].numpy(), cmap="bone")',
        message="Each head's colours are scaled to its own smallest and largest weight, so one shade means different weights in different heads: draw with vmin=0, vmax=1.",
    ),
    Mistake(
        id="positional_counted_from_one",
        target="PositionalEncoding",
        old="position = torch.arange(max_length, dtype=torch.float64).unsqueeze(1)",
        new="position = torch.arange(1, max_length + 1, dtype=torch.float64).unsqueeze(1)",
        message="The positions are counted from 1: the first token is at position 0, so row 0 of the table is sin(0) = 0 and cos(0) = 1 in every pair. Number the positions 0, 1, ..., max_length - 1 (torch.arange(max_length)).",
    ),
    Mistake(
        id="encode_pads_without_cutting",
        target="encode",
        old="rows = [row[:length] + [stoi[PAD]] * (length - len(row[:length])) for row in ids]",
        new="rows = [row + [stoi[PAD]] * (length - len(row)) for row in ids]",
        message="Rows longer than max_length are padded but not cut: padding adds nothing to them, so the rows keep different lengths and torch.tensor refuses them. Cut each row to its first max_length ids (row[:length]), then pad.",
    ),
    Mistake(
        id="mask_tested_for_truth",
        target="scaled_dot_product_attention",
        old="if mask is not None:",
        new="if mask:",
        message='`if mask:` asks a tensor of many values for one truth value, which PyTorch refuses ("Boolean value of Tensor with more than one value is ambiguous"). To ask whether a mask was given, compare it with None: `mask is not None`.',
    ),
    Mistake(
        id="mask_blocks_where_true",
        target="scaled_dot_product_attention",
        old='scores = scores.masked_fill(mask == 0, float("-inf"))',
        new='scores = scores.masked_fill(mask, float("-inf"))',
        message="masked_fill(mask, ...) blocks the keys where the mask is True (the convention of nn.MultiheadAttention's "
        "key_padding_mask and of some course handouts), and refuses a 0/1 integer mask: here the mask is True (or 1) "
        "where attending is ALLOWED. Block where it is 0 or False: masked_fill(mask == 0, float('-inf')).",
    ),
    Mistake(
        id="softmax_over_heads",
        target="scaled_dot_product_attention",
        old="attn_probs = scores.softmax(dim=-1)",
        new="attn_probs = scores.softmax(dim=1)",
        message="The softmax runs over dim=1: the heads of 4-D scores (batch, heads, q_len, k_len), the queries of "
        "3-D ones, so the rows (each query's weights over the keys) do not sum to 1. Use dim=-1, the keys.",
    ),
    Mistake(
        id="softmax_implicit_dim",
        target="scaled_dot_product_attention",
        old="attn_probs = scores.softmax(dim=-1)",
        new="attn_probs = nn.functional.softmax(scores)",
        message="softmax is called without dim, so PyTorch picks one (with a warning): dim 0 (the batch) of 3-D scores, "
        "dim 1 (the heads) of 4-D ones, and the rows do not sum to 1. Say dim=-1, the keys.",
        line=r"[sS]oftmax\(\s*[\w.]*\s*\)",
    ),
    Mistake(
        id="mask_after_softmax",
        target="scaled_dot_product_attention",
        old='if mask is not None:\n        scores = scores.masked_fill(mask == 0, float("-inf"))\n    attn_probs = scores.softmax(dim=-1)',
        new="attn_probs = scores.softmax(dim=-1)\n    if mask is not None:\n        attn_probs = attn_probs.masked_fill(mask == 0, 0.0)",
        message="The mask is applied after the softmax (the blocked weights set to 0): the rows of the kept weights no "
        "longer sum to 1. Block the scores before the softmax, with -inf, so that the softmax shares each row among "
        "the allowed keys only.",
    ),
    Mistake(
        id="positional_tensor2tensor_step",
        target="PositionalEncoding",
        old="angle = position / 10000 ** (two_i / d_model)",
        new="angle = position / 10000 ** (two_i / 2 / max(d_model // 2 - 1, 1))",
        message="The frequencies step by log(10000) / (d_model/2 - 1), as tensor2tensor's get_timing_signal_1d does "
        "(its last pair reaches 1/10000 exactly): the paper's table, and this one, uses 10000^(2i/d_model), whose "
        "exponents step by 2/d_model.",
    ),
    Mistake(
        id="positional_tensor2tensor_table",
        target="PositionalEncoding",
        old="angle = position / 10000 ** (two_i / d_model)  # (max_length, d_model / 2)\n        pe = torch.zeros(max_length, d_model, dtype=torch.float64)\n        pe[:, 0::2] = torch.sin(angle)\n        pe[:, 1::2] = torch.cos(angle)",
        new="angle = position / 10000 ** (two_i / 2 / max(d_model // 2 - 1, 1))\n        pe = torch.cat([torch.sin(angle), torch.cos(angle)], dim=1)",
        message="This is tensor2tensor's timing signal (get_timing_signal_1d): all sines, then all cosines, with "
        "frequencies stepping by log(10000) / (d_model/2 - 1). The paper's table interleaves them, sine in the "
        "even columns and cosine in the odd ones, with the frequency 10000^(-2i/d_model) for pair i.",
    ),
    Mistake(
        id="positional_exponent_sign_flipped",
        target="PositionalEncoding",
        old="angle = position / 10000 ** (two_i / d_model)",
        new="angle = position.float() * torch.exp(two_i.float() * (math.log(10000.0) / d_model))",
        message="The positions are multiplied by 10000^(2i/d_model) instead of divided (an exp(2i * log(10000) / d_model) "
        "without its minus sign): the frequencies grow with i. pos / 10000^(2i/d_model), or "
        "pos * exp(-2i * log(10000) / d_model).",
    ),
    Mistake(
        id="positional_first_row_zero",
        target="PositionalEncoding",
        old="pe[:, 1::2] = torch.cos(angle)",
        new="pe[:, 1::2] = torch.cos(angle)\n        pe[0] = 0.0",
        message="Position 0 is all zeros (as code that keeps a zero row for padding makes it): its sines are "
        "sin(0) = 0, but its cosines are cos(0) = 1. Compute row 0 like every other.",
    ),
    Mistake(
        id="positional_dropout_probability_fixed",
        target="PositionalEncoding",
        old="self.dropout = nn.Dropout(p=dropout)\n        position = torch.arange(max_length",
        new="self.dropout = nn.Dropout(p=0.1)\n        position = torch.arange(max_length",
        message="The dropout's probability is fixed (nn.Dropout(0.1)), whatever the dropout argument: build "
        "self.dropout = nn.Dropout(dropout) with the probability given.",
    ),
    Mistake(
        id="split_heads_interleaved",
        target="split_heads",
        old="x = x.reshape(batch, seq, n_heads, d_model // n_heads)  # (batch, seq, n_heads, d_key)\n    return x.transpose(1, 2)",
        new="return x.reshape(batch, seq, d_model // n_heads, n_heads).permute(0, 3, 1, 2)",
        message="The features are dealt to the heads in turn (head h gets features h, h + n_heads, h + 2*n_heads, ...: "
        "a reshape to (batch, seq, d_key, n_heads)): head h holds the contiguous slice h*d_key up to (h+1)*d_key. "
        "Reshape to (batch, seq, n_heads, d_key), then swap axes 1 and 2.",
    ),
    Mistake(
        id="mha_mask_unsqueezed_then_combined",
        target="MultiHeadAttention",
        old="A, attn_probs = scaled_dot_product_attention(Q, K, V, mask, self.dropout)",
        new="A, attn_probs = scaled_dot_product_attention(Q, K, V, None if mask is None else mask.unsqueeze(1), self.dropout)",
        message="The layer adds an axis to the mask (mask.unsqueeze(1), from code written for 3-D masks): the masks "
        "given here are already 4-D, so the scores, and the heads given to combine_heads, become 5-D, and "
        "combine_heads refuses them. Pass the mask on as it is.",
    ),
    Mistake(
        id="mha_dropout_probability_fixed",
        target="MultiHeadAttention",
        old="self.Wo = nn.Linear(d_model, d_model)  # output projection, after the heads are joined\n        self.dropout = nn.Dropout(p=dropout)",
        new="self.Wo = nn.Linear(d_model, d_model)\n        self.dropout = nn.Dropout(p=0.1)",
        message="self.dropout's probability is fixed (nn.Dropout(0.1)), whatever the dropout argument: build "
        "self.dropout = nn.Dropout(dropout) with the probability given.",
    ),
    Mistake(
        id="encode_keeps_punctuation_tokens",
        target="encode",
        old="ids = [[stoi.get(token, stoi[UNK]) for token in tokenize(text)] for text in texts]",
        new='import re\n\n    def basic_english(text):\n        text = re.sub(r"([.,()!?\'])", r" \\1 ", text.lower().replace(chr(34), ""))\n        return re.sub(r"[;:]", " ", text).split()\n\n    ids = [[stoi.get(token, stoi[UNK]) for token in basic_english(text)] for text in texts]',
        message="The text is split with a tokenizer of its own that keeps punctuation as tokens (torchtext's "
        "basic_english makes '.', ',', '!', '?', \"'\" tokens of their own): they become <unk> ids. Tokenize with "
        "tokenize(text), which deletes punctuation, so that encode and build_vocab see the same tokens.",
    ),
    Mistake(
        id="encode_appends_end_token",
        target="encode",
        old="ids = [[stoi.get(token, stoi[UNK]) for token in tokenize(text)] for text in texts]",
        new='ids = [[stoi.get(token, stoi[UNK]) for token in tokenize(text)] + [stoi["<eos>"]] for text in texts]',
        message="encode appends an end token, stoi['<eos>'], as sequence-to-sequence code does: this vocabulary has "
        "none ('<pad>' and '<unk>' are its only specials), so the look-up fails. Encode the text's own tokens only.",
    ),
    Mistake(
        id="mask_complemented",
        target="scaled_dot_product_attention",
        old='scores = scores.masked_fill(mask == 0, float("-inf"))',
        new='scores = scores.masked_fill(~mask, float("-inf"))',
        message="~mask is right for a bool mask only: on a 0/1 integer mask, which the contract allows, ~ flips "
        "every bit (~1 is -2, ~0 is -1), so every key is blocked and the weights are nan. Compare instead: "
        "masked_fill(mask == 0, float('-inf')), right for both.",
    ),
    Mistake(
        id="attention_dropout_ignored",
        target="scaled_dot_product_attention",
        old="weights = attn_probs if dropout is None else dropout(attn_probs)",
        new="weights = attn_probs",
        message="The dropout given is never applied: when dropout is not None, the weights that multiply V are "
        "dropout(attn_probs) (and attn_probs, before dropout, is what the function returns).",
    ),
    Mistake(
        id="mha_dropout_not_passed",
        target="MultiHeadAttention",
        old="A, attn_probs = scaled_dot_product_attention(Q, K, V, mask, self.dropout)",
        new="A, attn_probs = scaled_dot_product_attention(Q, K, V, mask)",
        message="self.dropout never reaches the attention weights: the layer calls scaled_dot_product_attention "
        "without it. Pass it on, scaled_dot_product_attention(Q, K, V, mask, self.dropout).",
    ),
]

# ---------------------------------------------------------------- families: one slip, several values
# Each entry below stands for one mistake per value (autograder/grade/mistakes.py): the kit names the
# member whose behaviour is the student's, and quotes the student's line where `line` finds it.

QUERY, KEY, VALUE = r"(query|q|Q|x)", r"(key|k|K)", r"(value|v|V)"
SPLITS = {
    "query": ("Q", "Wq", QUERY),
    "key": ("K", "Wk", KEY),
    "value": ("V", "Wv", VALUE),
}


def _split(input_: str) -> str:
    """The reference's line splitting one projected input into heads."""
    letter, weight, _ = SPLITS[input_]
    return f"{letter} = split_heads(self.{weight}({input_}), self.n_heads)"


MISTAKES += [
    Mistake(
        id="softmax_over_dim_{name}",
        target="scaled_dot_product_attention",
        old="attn_probs = scores.softmax(dim=-1)",
        new="attn_probs = scores.softmax(dim={dim})",
        message="The softmax runs over dim={dim}: {what}, so the rows (each query's weights over the keys) do not "
        "all sum to 1. Use dim=-1, the keys, whatever the number of leading axes.",
        values=[
            {"name": "0", "dim": "0", "what": "the batch, whatever the number of axes"},
            {
                "name": "2",
                "dim": "2",
                "what": "the keys of 3-D scores (batch, q_len, k_len) but the queries of 4-D ones "
                "(batch, heads, q_len, k_len)",
            },
            {"name": "minus_3", "dim": "-3", "what": "the batch of 3-D scores and the heads of 4-D ones"},
        ],
        line=r"softmax\(.*\bdim\s*=\s*{dim}\b",
    ),
    Mistake(
        id="attention_{name}",
        target="scaled_dot_product_attention",
        old="scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)",
        new="scores = query @ key.transpose(-2, -1){scale}",
        message="{what}: divide Q K^T by sqrt(d_k), d_k being the width of these queries, query.size(-1).",
        values=[
            {
                "name": "multiplied_by_sqrt_d_k",
                "scale": " * math.sqrt(d_k)",
                "what": "The scores are multiplied by sqrt(d_k)",
            },
            {
                "name": "scaled_by_sqrt_d_v",
                "scale": " / math.sqrt(value.size(-1))",
                "what": "The scores are divided by sqrt(d_v), the width of the values: it differs from d_k where the "
                "values are wider or narrower than the keys",
            },
            *(
                {
                    "name": f"scaled_by_sqrt_{c}",
                    "scale": f" / math.sqrt({c})",
                    "what": f"The scores are divided by sqrt({c}) = {c**0.5:g}, a fixed number (a d_k, d_model or "
                    "head count set once at the top of the code), right only where the queries have that width",
                }
                for c in (8, 16, 32, 64, 128, 256, 512)
            ),
        ],
    ),
    Mistake(
        id="attention_{name}",
        target="scaled_dot_product_attention",
        old="    d_k = query.size(-1)\n    scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)",
        new="{code}",
        message="{what} The contract's inputs have any number of leading axes: (batch, q_len, d_k) too.",
        values=[
            {
                "name": "unpacks_four_sizes",
                "code": "    batch, heads, q_len, d_k = query.size()\n    scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)",
                "what": "The inputs are unpacked into four sizes (batch, heads, length, d_k = k.size()), so 3-D inputs "
                "raise: read d_k from the last axis alone, query.size(-1).",
            },
            {
                "name": "scaled_by_heads_times_d_k",
                "code": "    batch, heads, q_len, d_k = query.size()\n    scores = query @ key.transpose(-2, -1) / math.sqrt(heads * d_k)",
                "what": "The scores are divided by sqrt(heads * d_k), that is sqrt(d_model): each head's queries have "
                "d_k features, so divide by sqrt(d_k), query.size(-1); and the four sizes unpacked make 3-D inputs raise.",
            },
            {
                "name": "key_viewed_as_transposed",
                "code": "    batch, heads, k_len, d_k = key.size()\n    scores = query @ key.view(batch, heads, d_k, k_len) / math.sqrt(d_k)",
                "what": "K^T is made with view(batch, heads, d_k, length), which reads the same numbers in another "
                "shape but does not swap the axes: use key.transpose(-2, -1); and the four sizes unpacked make 3-D "
                "inputs raise.",
            },
        ],
        line=r"^\s*\w+\s*,\s*\w+\s*,\s*\w+\s*,\s*\w+\s*=\s*\w+\.(size\(\)|shape)",
    ),
    Mistake(
        id="attention_key_{name}",
        target="scaled_dot_product_attention",
        old="scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)",
        new="scores = query @ {key_t} / math.sqrt(d_k)",
        message="K^T is {key_t}, {what}. Swap the last two axes whatever the number of leading ones: "
        "key.transpose(-2, -1).",
        values=[
            {
                "name": "transposed_2_3",
                "key_t": "key.transpose(2, 3)",
                "what": "the last two axes of 4-D keys only: 3-D keys (batch, k_len, d_k) have no axis 3",
                "pattern": r"transpose\(\s*(2\s*,\s*3|3\s*,\s*2)\s*\)",
            },
            {
                "name": "transposed_1_2",
                "key_t": "key.transpose(1, 2)",
                "what": "the last two axes of 3-D keys only: on 4-D keys (batch, heads, k_len, d_k) it swaps the heads "
                "and the keys",
                "pattern": r"transpose\(\s*(1\s*,\s*2|2\s*,\s*1)\s*\)",
            },
            {
                "name": "permuted_0_2_1",
                "key_t": "key.permute(0, 2, 1)",
                "what": "right for 3-D keys only: 4-D keys need four axes in permute",
                "pattern": r"permute\(\s*0\s*,\s*2\s*,\s*1\s*\)",
            },
            {
                "name": "permuted_0_1_3_2",
                "key_t": "key.permute(0, 1, 3, 2)",
                "what": "right for 4-D keys only: 3-D keys have three axes",
                "pattern": r"permute\(\s*0\s*,\s*1\s*,\s*3\s*,\s*2\s*\)",
            },
        ],
        line="{pattern}",
    ),
    Mistake(
        id="mask_{name}",
        target="scaled_dot_product_attention",
        old='scores = scores.masked_fill(mask == 0, float("-inf"))',
        new="scores = {code}",
        message="{what}",
        values=[
            {
                "name": "inverted_with_a_large_negative",
                "code": "scores.masked_fill(mask != 0, -1e9)",
                "what": "The mask is inverted: the keys where the mask is 1 (True) get -1e9, so the keys that count are "
                "the blocked ones. Block where the mask is 0 (False): masked_fill(mask == 0, -1e9).",
                "pattern": r"masked_fill_?\(.*mask\s*(!=\s*0|==\s*1|\.bool\(\))",
            },
            {
                "name": "as_masked_fills_own_with_a_large_negative",
                "code": "scores.masked_fill(mask, -1e9)",
                "what": "masked_fill(mask, -1e9) blocks the keys where the mask is True (the convention of "
                "nn.MultiheadAttention's key_padding_mask and of some tutorials), and refuses a 0/1 integer mask: "
                "here the mask is True (or 1) where attending is ALLOWED. Block where it is 0 or False: "
                "masked_fill(mask == 0, -1e9).",
                "pattern": r"masked_fill_?\(\s*\w*mask\s*,",
            },
            {
                "name": "added_to_the_scores",
                "code": "scores + mask",
                "what": "The mask is added to the scores: an allowed key (True, 1) gains 1 and a blocked one (False, 0) "
                "nothing, so no key is blocked. Block with masked_fill(mask == 0, float('-inf')), or add a mask of 0 "
                "(allowed) and -inf (blocked) made from it.",
                "pattern": r"\+\s*\w*mask\b\s*($|\)|#)",
            },
            {
                "name": "times_a_large_negative_added",
                "code": "scores + mask * -1e9",
                "what": "scores + mask * -1e9 blocks the keys where the mask is 1 (True): TensorFlow's convention, "
                "where 1 means blocked. Here the mask is True (1) where attending is allowed: add (mask == 0) * -1e9, "
                "or use masked_fill(mask == 0, float('-inf')).",
                "pattern": r"mask\s*\*\s*-\s*1e|-\s*1e\d*\s*\*\s*\w*mask",
            },
            {
                "name": "subtracted_from_one",
                "code": "scores + (1.0 - mask) * -10000.0",
                "what": "(1.0 - mask) * -10000.0 (Hugging Face's extended attention mask) fails on a bool mask, which "
                "the contract's masks are: PyTorch refuses `-` with a bool tensor. Use masked_fill(mask == 0, "
                "float('-inf')), right for bool and 0/1 masks alike.",
                "pattern": r"1(\.0*)?\s*-\s*\w*mask",
            },
        ],
        line="{pattern}",
    ),
    Mistake(
        id="attention_scaled_after_the_softmax",
        target="scaled_dot_product_attention",
        old='scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)  # (..., q_len, k_len)\n    if mask is not None:\n        scores = scores.masked_fill(mask == 0, float("-inf"))\n    attn_probs = scores.softmax(dim=-1)',
        new='scores = query @ key.transpose(-2, -1)  # (..., q_len, k_len)\n    if mask is not None:\n        scores = scores.masked_fill(mask == 0, float("-inf"))\n    attn_probs = scores.softmax(dim=-1) / math.sqrt(d_k)',
        message="The scale comes after the softmax (the weights are divided by sqrt(d_k)): the softmax sees "
        "unscaled scores and the weights no longer sum to 1. Divide Q K^T by sqrt(d_k) before the mask and "
        "the softmax.",
        line=r"softmax\(.*\)\s*/",
    ),
    Mistake(
        id="attention_dropout_on_the_scores",
        target="scaled_dot_product_attention",
        old="attn_probs = scores.softmax(dim=-1)  # (..., q_len, k_len)\n    weights = attn_probs if dropout is None else dropout(attn_probs)",
        new="scores = scores if dropout is None else dropout(scores)\n    attn_probs = scores.softmax(dim=-1)  # (..., q_len, k_len)\n    weights = attn_probs",
        message="Dropout acts on the scores, before the softmax: a dropped score becomes 0, which still gets "
        "weight, and the weights returned carry the dropout. Apply dropout to the weights after the softmax, "
        "dropout(attn_probs) @ value, and return attn_probs as they were before dropout.",
    ),
    Mistake(
        id="mha_{input}_not_projected",
        target="MultiHeadAttention",
        old="{right}",
        new="{letter} = split_heads({input}, self.n_heads)",
        message="The {input} goes to the heads without its projection: self.{weight} is built but never applied "
        "to it. Split self.{weight}({input}) into heads.",
        values=[
            {"input": input_, "right": _split(input_), "letter": letter, "weight": weight}
            for input_, (letter, weight, _) in SPLITS.items()
        ],
    ),
    Mistake(
        id="mha_{input}_projected_with_{weight}",
        target="MultiHeadAttention",
        old="{right}",
        new="{letter} = split_heads(self.{weight}({input}), self.n_heads)",
        message="The {input} is projected with self.{weight}, the {owner}'s weights: each input has its own "
        "projection, Wq for the query, Wk for the key, Wv for the value.",
        values=[
            {
                "input": input_,
                "right": _split(input_),
                "letter": SPLITS[input_][0],
                "weight": weight,
                "owner": owner,
                "pattern": rf"\.{weight}\(\s*{SPLITS[input_][2]}\s*\)",
            }
            for input_ in SPLITS
            for owner, (_, weight, _) in SPLITS.items()
            if owner != input_
        ],
        line="{pattern}",
    ),
    Mistake(
        id="mha_{name}_from_the_{input}",
        target="MultiHeadAttention",
        old="{right}",
        new="{letter} = split_heads(self.{weight}({input}), self.n_heads)",
        message="The {name} are computed from the {input} argument: project {own} with {weight} (in "
        "cross-attention the query, the key and the value differ).",
        values=[
            {
                "name": {"query": "queries", "key": "keys", "value": "values"}[own],
                "own": own,
                "input": input_,
                "right": _split(own),
                "letter": SPLITS[own][0],
                "weight": SPLITS[own][1],
                "pattern": rf"\.{SPLITS[own][1]}\(\s*{SPLITS[input_][2]}\s*\)",
            }
            for own in SPLITS
            for input_ in SPLITS
            if input_ != own
        ],
        line="{pattern}",
    ),
    Mistake(
        id="mha_arguments_in_another_order",
        target="MultiHeadAttention",
        old="    def forward(self, query, key, value, mask=None):",
        new="    def forward(self, key, value, query, mask=None):",
        message="forward takes its inputs in another order (key, value, query, as in code whose layer is called "
        "that way): the contract calls layer(query, key, value, mask), so in cross-attention each input is "
        "projected as another. Take (query, key, value, mask), in that order.",
        line=r"def forward\(\s*self\s*,\s*(?!q|x)",
    ),
    Mistake(
        id="mha_mask_{name}",
        target="MultiHeadAttention",
        old="A, attn_probs = scaled_dot_product_attention(Q, K, V, mask, self.dropout){rest}",
        new="A, attn_probs = scaled_dot_product_attention(Q, K, V, None if mask is None else mask.unsqueeze(1){more}, self.dropout){joined}",
        message="The layer adds an axis to the mask ({how}, from code written for 3-D masks): the masks given here "
        "are already 4-D, (batch or 1, 1, q_len or 1, k_len), so {what}. Pass the mask on as it is.",
        values=[
            {
                "name": "repeated_per_head",
                "rest": "",
                "more": ".repeat(1, self.n_heads, 1, 1)",
                "joined": "",
                "how": "mask.unsqueeze(1).repeat(1, n_heads, 1, 1)",
                "what": "repeat is given fewer sizes than the mask has axes and refuses it",
            },
            {
                "name": "expanded_per_head",
                "rest": "",
                "more": ".expand(-1, self.n_heads, -1, -1)",
                "joined": "",
                "how": "mask.unsqueeze(1).expand(-1, n_heads, -1, -1)",
                "what": "expand is given fewer sizes than the mask has axes and refuses it",
            },
            {
                "name": "unsqueezed_then_joined_by_length",
                "rest": "\n        return self.Wo(combine_heads(A)), attn_probs",
                "more": "",
                "joined": "\n        return self.Wo(A.transpose(1, 2).reshape(query.size(0), query.size(1), -1)), attn_probs",
                "how": "mask.unsqueeze(1)",
                "what": "the scores become 5-D, and the heads joined into (batch, q_len, -1) are too wide for Wo",
            },
        ],
        line=r"mask\.unsqueeze\(1\)|mask\[:,\s*None",
    ),
    Mistake(
        id="mha_output_dropped_by_self_dropout",
        target="MultiHeadAttention",
        old="return self.Wo(combine_heads(A)), attn_probs",
        new="return self.dropout(self.Wo(combine_heads(A))), attn_probs",
        message="self.dropout acts on the layer's output too, after Wo (as some layers' residual dropout does): "
        "in this layer it acts on the attention weights only, inside the attention. Remove the dropout after Wo.",
        line=r"dropout\(\s*self\.\w*[oO]\w*\(",
    ),
    Mistake(
        id="mha_heads_split_without_transpose",
        target="MultiHeadAttention",
        old="Q = split_heads(self.Wq(query), self.n_heads)  # (batch, n_heads, q_len, d_key)\n        K = split_heads(self.Wk(key), self.n_heads)  # (batch, n_heads, k_len, d_key)\n        V = split_heads(self.Wv(value), self.n_heads)",
        new="d_key = query.size(-1) // self.n_heads\n        Q = self.Wq(query).reshape(query.size(0), self.n_heads, -1, d_key)\n        K = self.Wk(key).reshape(key.size(0), self.n_heads, -1, d_key)\n        V = self.Wv(value).reshape(value.size(0), self.n_heads, -1, d_key)",
        message="The layer reshapes the projections straight to (batch, n_heads, seq, d_key) (a view or reshape "
        "without the transpose), which mixes tokens into heads: reshape to (batch, seq, n_heads, d_key) first, "
        "then swap axes 1 and 2, as split_heads does.",
    ),
    Mistake(
        id="mha_heads_joined_without_transpose",
        target="MultiHeadAttention",
        old="return self.Wo(combine_heads(A)), attn_probs",
        new="return self.Wo(A.reshape(query.size(0), -1, query.size(-1))), attn_probs",
        message="The layer joins the heads by reshaping (batch, n_heads, q_len, d_key) straight to (batch, q_len, "
        "d_model), without moving the head axis back: transpose to (batch, q_len, n_heads, d_key) first, as "
        "combine_heads does.",
    ),
    Mistake(
        id="embeddings_divided_by_sqrt_d_model",
        target="Embeddings",
        old="return self.lut(x) * math.sqrt(self.d_model)",
        new="return self.lut(x) / math.sqrt(self.d_model)",
        message="The embeddings are divided by sqrt(d_model): the scale multiplies, lut(x) * sqrt(d_model).",
        line=r"/\s*(math\.|np\.|torch\.)?sqrt",
    ),
    Mistake(
        id="embeddings_padding_idx_1",
        target="Embeddings",
        old="self.lut = nn.Embedding(vocab_size, d_model)",
        new="self.lut = nn.Embedding(vocab_size, d_model, padding_idx=1)",
        message="The table is built with padding_idx=1: the row of that id (here '<unk>') never gets a gradient, "
        "so it is never trained. The contract's lut is a plain nn.Embedding(vocab_size, d_model).",
        line=r"padding_idx",
    ),
    Mistake(
        id="positional_frequencies_with_{log}",
        target="PositionalEncoding",
        old="angle = position / 10000 ** (two_i / d_model)",
        new="angle = position * torch.exp(two_i * -(math.{log}(10000.0) / d_model))",
        message="The frequencies are exp(-2i * {log}(10000) / d_model): math.{log} is not the natural logarithm, "
        "so the table's frequencies are those of another base than 10000. Use math.log: "
        "exp(-2i * log(10000) / d_model) = 1 / 10000^(2i/d_model).",
        values=[{"log": "log10"}, {"log": "log2"}],
        line=r"{log}\(",
    ),
    Mistake(
        id="positional_cosine_of_the_next_pair",
        target="PositionalEncoding",
        old="pe[:, 1::2] = torch.cos(angle)",
        new="pe[:, 1::2] = torch.cos(position / 10000 ** ((two_i + 2) / d_model))",
        message="The cosine of feature 2i+1 takes the next pair's frequency, 10000^(2(i+1)/d_model) (what "
        "2 * ceil(k / 2) gives for an odd column k): both features of a pair share 10000^(2i/d_model), "
        "2 * (k // 2) for column k.",
        line=r"ceil",
    ),
    Mistake(
        id="positional_positions_taken_from_one",
        target="PositionalEncoding",
        old="return self.dropout(x + self.pe[:, : x.size(1)])",
        new="return self.dropout(x + self.pe[:, 1 : x.size(1) + 1])",
        message="The table's rows added start at position 1 (pe[:, 1:seq + 1], as code that numbers the tokens "
        "from 1 does): the first token is at position 0, row 0 of the table. Add pe[:, :seq].",
        line=r"\[\s*:\s*,\s*1\s*:",
    ),
    Mistake(
        id="positional_sliced_by_the_batch{name}",
        target="PositionalEncoding",
        old="return self.dropout(x + self.pe[:, : x.size(1)])",
        new="return self.dropout(x + self.pe{slice})",
        message="{what} Here x is batch first, (batch, seq, d_model): add pe[:, :x.size(1)].",
        values=[
            {
                "name": "",
                "slice": "[:, : x.size(0)]",
                "what": "The table is sliced by x.size(0), the batch size (code written for sequence-first inputs, "
                "(seq, batch, d_model), reads the length from axis 0).",
            },
            {
                "name": "_on_its_first_axis",
                "slice": "[: x.size(0)]",
                "what": "pe[:x.size(0)] slices the table's first axis, which has one row here, so all max_length "
                "positions are added (PyTorch's tutorial keeps its table as (max_len, 1, d_model), sequence first; "
                "here it is (1, max_length, d_model)).",
            },
        ],
        line=r"(size\(0\)|shape\[0\])",
    ),
    Mistake(
        id="positional_added_in_place",
        target="PositionalEncoding",
        old="return self.dropout(x + self.pe[:, : x.size(1)])",
        new="x += self.pe[:, : x.size(1)]\n        return self.dropout(x)",
        message="The table is added in place (x += pe), which changes the tensor the caller passed in: the "
        "caller still holds it (the embeddings, used again for a residual or their gradients). Return "
        "x + pe[:, :seq], a new tensor.",
        line=r"\+=",
    ),
    Mistake(
        id="encode_never_cuts",
        target="encode",
        old="length = max_length if max_length is not None else max(len(row) for row in ids)",
        new="length = max([max_length or 0] + [len(row) for row in ids])",
        message="Rows longer than max_length are not cut: the rows are padded up to max_length, but a text longer "
        "than it makes the whole batch as long as that text. Cut each row to its first max_length ids, then pad.",
    ),
    Mistake(
        id="vocab_in_set_order",
        target="build_vocab",
        old="words = sorted({token for text in texts for token in tokenize(text)})",
        new="words = sorted({token for text in texts for token in tokenize(text)}, reverse=True)",
        message="The words are numbered in an order of their own, not sorted: a set (or a dict made from one) "
        "gives its words in an order that changes from run to run, so the ids do too. Sort the unique tokens, "
        "then give them ids 2, 3, ... in that order.",
        line=r"set\(|enumerate\(\s*\{",
        unordered=("words",),
    ),
]


# The softmax slips again, in code that blocks keys with -1e9 rather than -inf: the two give the same
# weights but where a slice the softmax runs over is blocked whole (a padding mask's column, when the
# softmax runs over the queries), which -inf makes nan and -1e9 uniform.
FILL = 'scores = scores.masked_fill(mask == 0, float("-inf"))\n    '
MISTAKES += [
    Mistake(
        id=f"{slip.id}_masking_with_minus_1e9",
        target=slip.target,
        old=FILL + slip.old,
        new=FILL.replace('float("-inf")', "-1e9") + slip.new,
        message=slip.message,
        line=slip.line,
    )
    for entry in list(MISTAKES)
    for slip in entry.members()
    if slip.target == "scaled_dot_product_attention"
    and slip.old == "attn_probs = scores.softmax(dim=-1)"
    and slip.id not in ("softmax_dim_3", "softmax_over_d_k")  # over the keys wherever a mask is given
]
