g++ -DUNRELATED -o still-broken still-broken.cu
