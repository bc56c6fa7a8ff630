SRC=prog.cu
EXE=prog

nvcc -arch=sm_80 -DSHMOO -o $EXE $SRC
