! gemm on R ranks in Fortran (mpifort): each rank computes its own rows of C (its tile,
! C(:, 1:C_count) in Fortran's reversed order) from its rows of A and the replicated B; no
! messages. It checks the distributed ABI from Fortran: the tiles' extents and comm.
! hpcab-distribution: A=cyclic C=cyclic
subroutine gemm(A, B, C, alpha, beta, NI, NJ, NK, A_first, A_count, C_first, C_count, comm, workspace, &
                workspace_size) bind(C, name="gemm")
  use, intrinsic :: iso_c_binding
  implicit none
  integer(c_int64_t), value, intent(in) :: NI, NJ, NK, A_first, A_count, C_first, C_count, workspace_size
  integer(c_int), value, intent(in) :: comm
  real(c_double), value, intent(in) :: alpha, beta
  real(c_double), intent(in) :: A(NK, A_count), B(NJ, NK)
  real(c_double), intent(inout) :: C(NJ, C_count)
  integer(c_int8_t), intent(inout) :: workspace(workspace_size)
  integer(c_int64_t) :: i, j, k
  real(c_double) :: acc(NJ)
  do i = 1, C_count
    acc = 0.0_c_double
    do k = 1, NK
      do j = 1, NJ
        acc(j) = acc(j) + A(k, i) * B(j, k)
      end do
    end do
    C(:, i) = alpha * acc + beta * C(:, i)
  end do
end subroutine gemm
