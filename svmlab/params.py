"""Parameters: scikit-learn's get_params / set_params protocol and repr, shared by every estimator.

The constructor's arguments are the parameters; an estimator stores each under its own name
and checks them only in ``fit``, as scikit-learn's conventions ask.
"""

import inspect


class Parameters:
    """get_params, set_params and a repr listing the parameters changed from their defaults."""

    @classmethod
    def _param_names(cls):
        return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]

    def get_params(self, deep=True):
        """The constructor's parameters and their values."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        """Set parameters by name; returns self."""
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"{type(self).__name__} has no parameter {name!r}; valid: {', '.join(valid)}.")
            setattr(self, name, value)
        return self

    def __repr__(self):
        defaults = inspect.signature(type(self).__init__).parameters
        changed = [f"{k}={v!r}" for k, v in self.get_params().items() if repr(v) != repr(defaults[k].default)]
        return f"{type(self).__name__}({', '.join(changed)})"
