// Block 2 x 3 x 4 mm; OpenCASCADE numbers its faces x=0, x=2, y=0, y=3, z=0, z=4 (1..6).
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 2, 3, 4};
Physical Volume("body") = {1};
Physical Surface("bottom") = {5};
Physical Surface("top") = {6};
