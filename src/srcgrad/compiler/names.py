"""The names generated code uses: adjoints (``dx`` for ``x``), the record stack,
the helper modules (``np``, ``ad``, ``math``), none of them shadowing the user's."""


class Names:
    """Names used by generated code: adjoints, the stack, helper modules."""

    def __init__(self, gen, np_name, ad_name, math_name):
        self.gen = gen
        self.np = np_name
        self.ad = ad_name
        self.math = math_name
        self.adjoints = {}

    def d(self, n):
        if n not in self.adjoints:
            self.adjoints[n] = self.gen.fresh("d" + n)
        return self.adjoints[n]
