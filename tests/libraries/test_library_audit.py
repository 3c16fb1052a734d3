"""The generic leak audit's rules on texts: an original name counts only where it is code."""

from sebench.libraries.audit import LibraryChecker

MAPPING = {"library": "more-itertools", "module": "more_itertools", "leak_words": ["peekable"],
           "functions": {"more_itertools.chunked": "zwc.kocito", "more_itertools.first": "zwc.baxu",
                         "more_itertools.one": "zwc.tefi"}}


def kinds(hits):
    return sorted(set(hits))


def test_code_flags_an_original_name_unless_the_code_binds_it():
    checker = LibraryChecker(MAPPING)
    assert kinds(checker.code("import zwc\nx = chunked([1], 2)")) == [("original-name", "chunked")]
    assert kinds(checker.code("from zwc import first")) == [("original-name", "first")]
    assert checker.code("def f(first):\n    return first + 1") == []
    assert checker.code(">>> f(words=['one', 'two'])\n[['one']]") == []  # an example: strings are data


def test_prose_flags_names_only_in_code_positions():
    checker = LibraryChecker(MAPPING)
    assert checker.prose("Return the first item, or one of them.") == []
    assert kinds(checker.prose("Like `first`, but ...")) == [("original-name", "first")]
    assert kinds(checker.prose("Call chunked(x, 2) first.")) == [("original-name", "chunked")]
    assert kinds(checker.prose(">>> zwc.kocito(first)")) == [("original-name", "first")]
    assert checker.prose(">>> zwc.kocito(['one'])") == []


def test_the_module_path_registry_name_and_leak_words_count_anywhere():
    checker = LibraryChecker(MAPPING)
    assert kinds(checker.anywhere("as in More_Itertools or more-itertools; a peekable")) == [
        ("leak-word", "peekable"), ("module-path", "More_Itertools"), ("module-path", "more-itertools")]
    assert checker.anywhere("more items, itertools.chain") == []


def test_runtime_texts_count_names_called_quoted_or_after_a_dot():
    checker = LibraryChecker(MAPPING)
    assert kinds(checker.runtime("chunked() missing 1 required positional argument")) == [("original-name", "chunked")]
    assert kinds(checker.runtime("<generator object chunked>")) == [("original-name", "chunked")]
    assert kinds(checker.runtime("<generator object x.chunked>")) == [("original-name", "chunked")]
    assert checker.runtime("Expected exactly one item in iterable") == []
