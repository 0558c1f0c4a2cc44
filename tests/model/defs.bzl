# SPDX-License-Identifier: LGPL-2.1-or-later
"""model_config(): one configuration of a Promela model of tests/model,
checked by spin (check.sh): the model must pass under the configuration's
flags, and each of its variants (the model with one line switched) must
fail, so the properties are shown able to fail."""

def model_config(
        name,
        model,
        flags = [],
        timeout = None,
        variants = [],
        failing = []):
    """The tests of one configuration of `model`.

    Args:
      name: the prefix of the tests' names: `name`_test must pass; each
        variant V of `variants` is `name`_<v>_test (V in lower case), each
        (n, f) of `failing` `name`_<n>_test.
      model: the .pml file.
      flags: check.sh's -D flags of the configuration (every test's).
      timeout: the passing test's timeout (None: its size's default).
      variants: names of the model's one-line switches, each given as -DV;
        spin must find a violation in each.
      failing: (name, extra flags) of the failing tests that need more
        than one flag.
    """
    native.sh_test(
        name = name + "_test",
        size = "medium",
        timeout = timeout,
        srcs = ["check.sh"],
        args = ["$(location %s)" % model, "pass"] + flags,
        data = [model],
        tags = ["model"],
    )
    for n, extra in [(v.lower(), ["-D" + v]) for v in variants] + failing:
        native.sh_test(
            name = "%s_%s_test" % (name, n),
            size = "small",
            # Mostly the compilation of pan.c: a minute when the machine is busy.
            timeout = "moderate",
            srcs = ["check.sh"],
            args = ["$(location %s)" % model, "fail"] + extra + flags,
            data = [model],
            tags = ["model"],
        )
