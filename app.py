print("app placeholder")
