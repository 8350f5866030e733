from .scenario import main

main()
