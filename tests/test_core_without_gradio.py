"""The core must import and score with Gradio absent (style habit 1)."""

import subprocess
import sys
import textwrap


def test_analysis_imports_with_gradio_blocked() -> None:
    code = textwrap.dedent(
        """
        import sys, importlib, pkgutil

        class Block:
            def find_spec(self, name, path=None, target=None):
                if name == "gradio" or name.startswith("gradio.") or name.startswith("gradio_client"):
                    raise ImportError("gradio is blocked in this test")
                return None

        sys.meta_path.insert(0, Block())
        import analysis
        for mod in pkgutil.walk_packages(analysis.__path__, "analysis."):
            importlib.import_module(mod.name)
        assert not any(m == "gradio" or m.startswith("gradio.") for m in sys.modules)
        print("ok")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
