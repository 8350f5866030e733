from .play import main

main()
