#!/usr/bin/env python3
"""Tests of check_layering.py on small made-up trees (ctest `layering_check_test`)."""
import contextlib
import importlib.util
import io
import os
import tempfile
import unittest

_SPEC = importlib.util.spec_from_file_location(
    "check_layering", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                   "check_layering.py"))
check_layering = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(check_layering)


class CheckLayeringTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.repo = self._tmp.name
        self.src = os.path.join(self.repo, "src", "deltaguard")
        self.write("src/deltaguard/expr/parser.h", "#pragma once\n")
        self.write("src/deltaguard/expr/lexer_internal.h", "#pragma once\n")
        self.write("src/deltaguard/expr/parser.cc",
                   '#include "deltaguard/expr/lexer_internal.h"\n'
                   '#include "deltaguard/expr/parser.h"\n')
        self.write("src/deltaguard/sql/parse/sql_parser.cc",
                   '#include "deltaguard/expr/parser.h"\n')
        self.write("test/fuzz/expr_parse_fuzz.cc", '#include "deltaguard/expr/parser.h"\n')

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, rel, text):
        path = os.path.join(self.repo, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)

    def run_check(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = check_layering.main([self.src])
        return rc, out.getvalue()

    def test_clean_tree_passes(self):
        rc, out = self.run_check()
        self.assertEqual(rc, 0, out)
        self.assertIn("0 violations", out)

    def test_internal_header_from_another_folder_names_both_files(self):
        self.write("src/deltaguard/sql/parse/sql_parser.cc",
                   '#include "deltaguard/expr/lexer_internal.h"\n')
        rc, out = self.run_check()
        self.assertEqual(rc, 1, out)
        self.assertIn("sql/parse/sql_parser.cc:1: includes expr/lexer_internal.h, "
                      "private to expr/", out)

    def test_test_code_in_another_folder_is_held_to_the_rule(self):
        self.write("src/deltaguard/sql/parse/sql_parser_test.cc",
                   '#include "deltaguard/expr/lexer_internal.h"\n')
        rc, out = self.run_check()
        self.assertEqual(rc, 1, out)
        self.assertIn("sql/parse/sql_parser_test.cc:1: includes expr/lexer_internal.h", out)

    def test_files_under_test_are_held_to_the_rule(self):
        self.write("test/fuzz/expr_parse_fuzz.cc",
                   '#include "deltaguard/expr/lexer_internal.h"\n')
        rc, out = self.run_check()
        self.assertEqual(rc, 1, out)
        self.assertIn("test/fuzz/expr_parse_fuzz.cc:1: includes expr/lexer_internal.h", out)

    def test_a_folder_below_is_another_folder(self):
        # sql/parse is not sql: a private header of sql/ stays private to sql/ itself.
        self.write("src/deltaguard/sql/session_internal.h", "#pragma once\n")
        self.write("src/deltaguard/sql/parse/statement.cc",
                   '#include "deltaguard/sql/session_internal.h"\n')
        rc, out = self.run_check()
        self.assertEqual(rc, 1, out)
        self.assertIn("includes sql/session_internal.h, private to sql/", out)

    def test_upward_include_is_still_an_error_outside_tests(self):
        self.write("src/deltaguard/expr/binder.cc", '#include "deltaguard/sql/parse/x.h"\n')
        self.write("src/deltaguard/schema/ddl.cc", '#include "deltaguard/exec/x.h"\n')
        rc, out = self.run_check()
        self.assertEqual(rc, 1, out)
        self.assertIn("schema/ddl.cc:1: schema (layer 1) includes exec (layer 8)", out)
        self.assertNotIn("expr/binder.cc", out)  # expr and sql/parse share layer 2

    def test_tests_may_include_higher_public_headers(self):
        self.write("src/deltaguard/schema/ddl_test.cc", '#include "deltaguard/exec/x.h"\n')
        rc, out = self.run_check()
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    unittest.main()
