! A hand-written gemm for hpcab in Fortran: C = alpha*A@B + beta*C.
! The C row-major [NI][NJ] matrix C is C(NJ, NI) here, so C(j, i) is C[i][j] and the
! inner loop over j runs down a contiguous column.
subroutine gemm(A, B, C, alpha, beta, NI, NJ, NK, workspace, workspace_size) &
    bind(C, name="gemm")
  use, intrinsic :: iso_c_binding
  implicit none
  integer(c_int64_t), value, intent(in) :: NI, NJ, NK, workspace_size
  real(c_double), value, intent(in) :: alpha, beta
  real(c_double), intent(in) :: A(NK, NI)
  real(c_double), intent(in) :: B(NJ, NK)
  real(c_double), intent(inout) :: C(NJ, NI)
  integer(c_int8_t), intent(inout) :: workspace(workspace_size)
  integer(c_int64_t) :: i, k

  do i = 1, NI
    C(:, i) = beta * C(:, i)
    do k = 1, NK
      C(:, i) = C(:, i) + (alpha * A(k, i)) * B(:, k)
    end do
  end do
end subroutine gemm
