print("roundup")
